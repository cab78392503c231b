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
    /// The key of a sealed backup (the source store's key): the restore checks it against the
    /// backup's header (SL5), opens the archived journal with it, and seals the restored store
    /// with it. Internal until sealing is public.
    /// </summary>
    internal byte[]? SealingKey { get; set; }
}
