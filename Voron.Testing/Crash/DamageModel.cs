namespace Voron.Testing.Crash;

/// <summary>
/// What a power loss does to the writes and directory changes that were not yet synced. Each
/// model is a way real disks and file systems have been seen to behave (SQLite's crash VFS,
/// RocksDB's fault-injection file system, ALICE): see reference/reliability.md.
/// </summary>
internal enum DamageModel
{
    /// <summary>Everything issued reached the disk (the crash came just after the last call).</summary>
    KeepAll,

    /// <summary>Nothing unsynced reached the disk.</summary>
    DropAll,

    /// <summary>Each write, resize and directory change survives whole or not at all, independently of the others (any order).</summary>
    KeepOrDrop,

    /// <summary>Each write is kept, dropped, or torn: each 512-byte sector it covers holds the old or the new bytes.</summary>
    TornSectors,

    /// <summary>As <see cref="TornSectors"/>, and a torn sector may itself hold new bytes up to a byte boundary
    /// and old bytes after it, or the reverse: sector writes are not assumed atomic.</summary>
    TornBytes,

    /// <summary>As <see cref="TornSectors"/>, but a sector the write did not finish may hold random bytes
    /// (SQLite's crash VFS "trash" mode) — in the files <see cref="PowerLossPolicy.GarbageIn"/> allows.</summary>
    GarbageSectors,

    /// <summary>An orderly disk: every change issued before a random instant is kept, the write at that
    /// instant is torn, everything after it is lost.</summary>
    PrefixInTime,

    /// <summary><see cref="TornSectors"/> with 4096-byte sectors (an Advanced Format or flash device).</summary>
    TornSectors4K,
}
