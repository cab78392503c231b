namespace Voron;

/// <summary>
/// What <see cref="StorageEnvironment.RestoreAsync"/> replays on top of a backup. With no archive
/// the restored store is the backup as taken.
/// </summary>
/// <example>
/// <code>
/// await StorageEnvironment.RestoreAsync("/backups/full", "/var/lib/app/store",
///     new RestoreOptions { JournalArchiveDirectory = "/backups/journal", ToTime = DateTimeOffset.Parse("2026-11-27T10:15:00Z") }, ct);
/// </code>
/// </example>
public sealed class RestoreOptions
{
    /// <summary>
    /// The directory <see cref="StorageEnvironmentOptions.JournalArchiveDirectory"/> archived the
    /// source's journal files to; null (default) = restore the backup alone.
    /// </summary>
    public string? JournalArchiveDirectory { get; set; }

    /// <summary>Replay archived transactions up to and including this one; null = as far as the archive goes (or <see cref="ToTime"/>).</summary>
    public long? ToTransactionId { get; set; }

    /// <summary>
    /// Replay archived transactions committed at or before this time; null = no time limit. Needs
    /// <see cref="JournalArchiveDirectory"/>, and the archive must hold a transaction committed
    /// after it (else the restore is refused: later commits may still be in the live journal); a
    /// time before the backup's snapshot is refused.
    /// </summary>
    public DateTimeOffset? ToTime { get; set; }

    /// <summary>Reports progress; null (default) = none.</summary>
    public IProgress<BackupProgress>? Progress { get; set; }

    /// <summary>
    /// The key of an encrypted backup: the source store's <see cref="StorageEnvironmentOptions.EncryptionKey"/>
    /// (exactly 32 bytes). The restore checks it against the backup's header, decrypts the archived
    /// journal with it, and the restored store stays encrypted under it. A wrong or missing key is
    /// an <see cref="EncryptionKeyException"/> before anything is written; so is a key for a backup
    /// that is not encrypted. Set this or <see cref="EncryptionKeyProvider"/>, not both.
    /// </summary>
    public byte[]? EncryptionKey { get; set; }

    /// <summary>
    /// Returns the backup's key, given the destination directory (the store the restore creates,
    /// which keeps the backup's key): called once per restore; its result is copied, and the copy
    /// is cleared when the restore ends. Otherwise as <see cref="EncryptionKey"/>.
    /// </summary>
    public Func<string, byte[]>? EncryptionKeyProvider { get; set; }

    /// <summary>
    /// The key the restore uses (SL5): set directly by the engine's copies of the options (a
    /// restore's own resolved copy of the key), else <see cref="EncryptionKey"/>. Never written to disk.
    /// </summary>
    internal byte[]? SealingKey
    {
        get => _sealingKey ?? EncryptionKey;
        set => _sealingKey = value;
    }

    private byte[]? _sealingKey;

    /// <summary>
    /// These options for one restore into <paramref name="destination"/>, with the key resolved
    /// (the provider called once) into a pinned copy the caller clears with
    /// <see cref="Sealing.UserKey.Clear"/>; <paramref name="archiveDirectory"/> replaces the archive directory.
    /// </summary>
    internal RestoreOptions Resolve(string destination, string? archiveDirectory, out byte[]? key)
    {
        key = _sealingKey is null
            ? Sealing.UserKey.Resolve(EncryptionKey, EncryptionKeyProvider, destination, nameof(EncryptionKey), nameof(EncryptionKeyProvider))
            : null;
        return new RestoreOptions
        {
            JournalArchiveDirectory = archiveDirectory,
            ToTransactionId = ToTransactionId,
            ToTime = ToTime,
            Progress = Progress,
            SealingKey = key ?? _sealingKey,
        };
    }

    /// <summary>A copy of the key settings of <paramref name="other"/> onto these options (the object archive's restore).</summary>
    internal RestoreOptions WithKeyOf(RestoreOptions other)
    {
        EncryptionKey = other.EncryptionKey;
        EncryptionKeyProvider = other.EncryptionKeyProvider;
        _sealingKey = other._sealingKey;
        return this;
    }
}
