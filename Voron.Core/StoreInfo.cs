namespace Voron;

/// <summary>
/// What a store directory holds, read from its files without opening the store
/// (<see cref="StorageEnvironment.Inspect"/>): nothing is written, recovered or locked, so it can
/// be read while another process has the store open.
/// </summary>
/// <param name="Directory">The store's directory, as given.</param>
/// <param name="FormatVersion">The format version of the newest valid header copy.</param>
/// <param name="PageSize">The page size in bytes: 8,192, which every valid header copy states (HF3).</param>
/// <param name="StoreId">The store's random id (hex), fixed when the store was created.</param>
/// <param name="HeaderRevision">The newest valid header copy's revision (incremented by every header write).</param>
/// <param name="LastSyncedTransactionId">Every transaction up to this one is in the data file, synced.</param>
/// <param name="LastTransactionId">The last transaction a recovery would end with: the last valid journal record's, or <see cref="LastSyncedTransactionId"/> when the journal holds none after it.</param>
/// <param name="JournalTransactions">Transactions in the journal after <see cref="LastSyncedTransactionId"/>: what an open would replay.</param>
/// <param name="JournalFiles">The journal files on disk, by number, with the state each is in.</param>
/// <param name="Files">Every file of the store directory (journal files included), with its size.</param>
/// <param name="ClosedCleanly">True when the last close synced everything: the journal holds nothing past the header and no scratch file is left. False after a crash, a kill, or while the store is open.</param>
/// <param name="Lock">Who has the store open, or last had it open, as far as the lock file tells.</param>
/// <param name="Problems">What the look found wrong (a damaged header copy, a torn journal tail, an unreadable lock file), each a sentence; empty when none.</param>
public sealed record StoreInfo(string Directory, int FormatVersion, int PageSize, string StoreId, long HeaderRevision,
    long LastSyncedTransactionId, long LastTransactionId, long JournalTransactions,
    IReadOnlyList<JournalFileStatistics> JournalFiles, IReadOnlyList<StoreFileInfo> Files, bool ClosedCleanly,
    StoreLockInfo Lock, IReadOnlyList<string> Problems)
{
    /// <summary>The AEAD a sealed store seals with (format version 4), or null for a store that is not sealed.</summary>
    internal string? SealAlgorithm { get; init; }

    /// <summary>Whether the store is encrypted (<see cref="StorageEnvironmentOptions.EncryptionKey"/>); read from the header, without the key.</summary>
    public bool IsEncrypted => SealAlgorithm is not null;

    /// <summary>The algorithm an encrypted store uses (<c>AesGcm</c> or <c>ChaCha20Poly1305</c>), or null when it is not encrypted.</summary>
    public string? EncryptionAlgorithm => SealAlgorithm;
}

/// <summary>One file of a store directory.</summary>
/// <param name="Name">Its path relative to the store directory (<c>journal/…</c> for journal files).</param>
/// <param name="Bytes">Its length.</param>
public sealed record StoreFileInfo(string Name, long Bytes);

/// <summary>
/// The store's lock file (<c>voron.lock</c>): whether a process holds it now, and what the last
/// opener wrote in it when it opened the store.
/// </summary>
/// <param name="IsHeld">True when another opener holds the lock now (the store is open).</param>
/// <param name="ProcessId">The process id the last opener wrote, if the file tells.</param>
/// <param name="ProcessName">The last opener's process name, if the file tells.</param>
/// <param name="Durability">The durability mode the last opener used, if the file tells.</param>
/// <param name="OpenedAt">When the last opener opened the store, if the file tells.</param>
public sealed record StoreLockInfo(bool IsHeld, int? ProcessId, string? ProcessName, DurabilityMode? Durability, DateTimeOffset? OpenedAt);
