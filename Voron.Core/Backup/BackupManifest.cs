using System.Buffers.Binary;
using Voron.Platform;

namespace Voron.Backup;

// FORMAT: backup manifest, version 2 — voron.backup in a backup's directory (128 bytes).
//
// What makes a directory a backup (BK1) and what it holds: which store it was copied from, which
// snapshot, and where in that store's journal the next transaction starts, so that journal files
// archived from the store (Journal/JournalArchiver.cs) can be replayed on top of it.
// Integers are little-endian.
//
//   OFFSET SIZE NAME               MEANING
//   0      8    Magic              the ASCII bytes "VORONBAK"
//   8      4    FormatVersion      2 (1 is read too: see Compatibility)
//   12     4    Flags              bit 0 = Compacted (the copy was written densely: new page
//                                  numbers, so the source's journal cannot be replayed on it);
//                                  other bits zero
//   16     8    SourceStoreId      the source store's id (its header file's StoreId); not zero
//   24     8    SnapshotTxId       the copy holds every transaction up to this one, none after; >= 0
//   32     8    JournalFile        the source's journal file where record SnapshotTxId + 1 starts; >= 0
//   40     8    JournalOffset      its offset there; >= 0, a multiple of 4096
//   48     8    CopyStoreId        the copy's own store id (its header's StoreId); not zero, not
//                                  SourceStoreId
//   56     8    Pages              pages of the copy's data file (voron.data); >= 1
//   64     8    CreatedUnixMs      when the backup was completed, UTC Unix milliseconds
//   72     8    SnapshotCommitTime when SnapshotTxId committed: its journal record's CommitTime
//                                  (UTC Unix ms, Journal/JournalRecord.cs); 0 = unknown (BM5); >= 0
//   80     44   Reserved           zero
//   124    4    Checksum           CRC32C of bytes 0..123
//
// Valid iff
//   BM1. the file is exactly 128 bytes and the magic matches;
//   BM2. the checksum matches;
//   BM3. FormatVersion is 1 or 2; a higher one is FormatVersionException (a newer build wrote it:
//        restore with that build), a lower one is not a backup;
//   BM4. Flags has no unknown bit, the reserved bytes are zero, the ids are not zero and differ,
//        SnapshotTxId >= 0, JournalFile >= 0, JournalOffset >= 0 and a multiple of 4096, Pages >= 1,
//        SnapshotCommitTime >= 0.
// Anything else is a CorruptionException: "not a backup".
//
//   BM5. SnapshotCommitTime is the commit time of record SnapshotTxId as the store knew it (from
//        the commit, or the recovery that replayed it) or read from that record in the live journal
//        (SnapshotCopy.SnapshotCommitTime). It is 0 when no record of the snapshot exists (a store
//        made by a backup, a restore or a compaction, opened with nothing committed since), and in
//        every manifest of the builds before this rule, which always wrote 0. Restore reads 0 as
//        unknown, and then looks for record SnapshotTxId in the archive (JA10).
//
// Compatibility: a later version adds fields in the reserved bytes and bumps FormatVersion; this
// build refuses a version it does not know rather than misread it. Version 2 is version 1 with
// SnapshotCommitTime: the builds before BM5 wrote 0 at offset 72 as reserved bytes, and the builds
// that added the field still wrote version 1, so a version-1 manifest is read with either (0 is
// unknown, BM5). A build that knows only version 1 and checks the reserved bytes would call a
// manifest with a commit time "not a backup"; version 2 makes it say instead that a newer build
// wrote the backup.

/// <summary>The contents of voron.backup; see the FORMAT block above.</summary>
internal sealed record BackupManifest(ulong SourceStoreId, long SnapshotTxId, long JournalFile, long JournalOffset, ulong CopyStoreId, long Pages,
    long CreatedUnixMs, long SnapshotCommitTime, bool Compacted)
{
    public const string FileName = "voron.backup";
    public const int Size = 128;
    public const ulong Magic = 0x4B41424E4F524F56; // the ASCII bytes "VORONBAK" read little-endian
    public const int FormatVersion = 2;
    public const int FormatVersion1 = 1;
    public const int MagicOffset = 0;
    public const int FormatVersionOffset = 8;
    public const int FlagsOffset = 12;
    public const int SourceStoreIdOffset = 16;
    public const int SnapshotTxIdOffset = 24;
    public const int JournalFileOffset = 32;
    public const int JournalOffsetOffset = 40;
    public const int CopyStoreIdOffset = 48;
    public const int PagesOffset = 56;
    public const int CreatedOffset = 64;
    public const int SnapshotCommitTimeOffset = 72;
    public const int ReservedOffset = 80;
    public const int ChecksumOffset = 124;
    public const int CompactedFlag = 1;

    public static string PathIn(string directory) => Path.Combine(directory, FileName);

    public byte[] Encode()
    {
        var bytes = new byte[Size];
        var span = bytes.AsSpan();
        BinaryPrimitives.WriteUInt64LittleEndian(span[MagicOffset..], Magic);
        BinaryPrimitives.WriteInt32LittleEndian(span[FormatVersionOffset..], FormatVersion);
        BinaryPrimitives.WriteInt32LittleEndian(span[FlagsOffset..], Compacted ? CompactedFlag : 0);
        BinaryPrimitives.WriteUInt64LittleEndian(span[SourceStoreIdOffset..], SourceStoreId);
        BinaryPrimitives.WriteInt64LittleEndian(span[SnapshotTxIdOffset..], SnapshotTxId);
        BinaryPrimitives.WriteInt64LittleEndian(span[JournalFileOffset..], JournalFile);
        BinaryPrimitives.WriteInt64LittleEndian(span[JournalOffsetOffset..], JournalOffset);
        BinaryPrimitives.WriteUInt64LittleEndian(span[CopyStoreIdOffset..], CopyStoreId);
        BinaryPrimitives.WriteInt64LittleEndian(span[PagesOffset..], Pages);
        BinaryPrimitives.WriteInt64LittleEndian(span[CreatedOffset..], CreatedUnixMs);
        BinaryPrimitives.WriteInt64LittleEndian(span[SnapshotCommitTimeOffset..], SnapshotCommitTime);
        BinaryPrimitives.WriteUInt32LittleEndian(span[ChecksumOffset..], Crc32C.Compute(span[..ChecksumOffset]));
        return bytes;
    }

    /// <summary>Decodes and validates (BM1..BM4) the manifest bytes read from <paramref name="path"/>.</summary>
    public static BackupManifest Decode(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length != Size || BinaryPrimitives.ReadUInt64LittleEndian(bytes[MagicOffset..]) != Magic)
        {
            throw NotABackup(path, 0, $"BM1: the manifest is {bytes.Length} bytes or lacks the magic \"VORONBAK\"");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[ChecksumOffset..]) != Crc32C.Compute(bytes[..ChecksumOffset]))
        {
            throw NotABackup(path, ChecksumOffset, "BM2: the manifest's checksum does not match (damaged)");
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(bytes[FormatVersionOffset..]);
        if (version > FormatVersion)
        {
            throw new FormatVersionException(path, version, FormatVersion, "The backup was written by a newer Voron build; restore it with that build.");
        }

        if (version < FormatVersion1)
        {
            throw NotABackup(path, FormatVersionOffset, $"BM3: format version {version}");
        }

        var flags = BinaryPrimitives.ReadInt32LittleEndian(bytes[FlagsOffset..]);
        var manifest = new BackupManifest(
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[SourceStoreIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[SnapshotTxIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[JournalFileOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[JournalOffsetOffset..]),
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[CopyStoreIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[PagesOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[CreatedOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[SnapshotCommitTimeOffset..]),
            (flags & CompactedFlag) != 0);
        if ((flags & ~CompactedFlag) != 0 || bytes[ReservedOffset..ChecksumOffset].ContainsAnyExcept((byte)0) ||
            manifest.SourceStoreId == 0 || manifest.CopyStoreId == 0 || manifest.SourceStoreId == manifest.CopyStoreId ||
            manifest.SnapshotTxId < 0 || manifest.JournalFile < 0 || manifest.JournalOffset < 0 ||
            manifest.JournalOffset % Journal.JournalRecord.Alignment != 0 || manifest.Pages < 1 || manifest.SnapshotCommitTime < 0)
        {
            throw NotABackup(path, 0, "BM4: a manifest field is out of range (flags, reserved bytes, ids, transaction, journal position, pages or commit time)");
        }

        return manifest;
    }

    /// <summary>Reads and validates the manifest of the backup in <paramref name="directory"/>; a missing or invalid one is "not a backup" (BK1).</summary>
    public static BackupManifest Read(IFileSystem fileSystem, string directory)
    {
        var path = PathIn(directory);
        if (!fileSystem.FileExists(path))
        {
            throw NotABackup(path, 0, $"'{directory}' is not a backup: it has no {FileName} (a backup that did not complete has none: BK1)");
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var bytes = new byte[Math.Min(file.Length, Size + 1)];
        var read = file.Read(0, bytes);
        return Decode(bytes.AsSpan(0, read), path);
    }

    private static CorruptionException NotABackup(string path, long offset, string reason) =>
        new(path, offset, $"not a backup: {reason}");
}
