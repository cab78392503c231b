namespace Voron;

/// <summary>
/// The directory <see cref="StorageEnvironmentOptions.JournalArchiveDirectory"/> fills with the
/// store's completed journal files: with a full backup, every transaction since it, for
/// <see cref="StorageEnvironment.RestoreAsync"/> to replay to any point.
/// </summary>
/// <example>
/// <code>
/// var backup = await env.BackupAsync("/backups/2026-11-27", cancellationToken: ct);
/// JournalArchive.Prune("/backups/journal", backup.Directory); // files older than the backup are no longer needed
/// </code>
/// </example>
public static class JournalArchive
{
    /// <summary>
    /// Deletes the archived journal files that hold only transactions the backup in
    /// <paramref name="backupDirectory"/> already contains; returns how many were deleted. Keep the
    /// files older than the oldest backup you may still restore from.
    /// </summary>
    public static int Prune(string archiveDirectory, string backupDirectory) => throw new NotImplementedException();
}
