namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Copies a consistent snapshot of the whole store (trees, page files, documents, SQLite
    /// databases) into <paramref name="destinationDirectory"/> while readers and writers go on.
    /// The copy is written under a temporary name, verified, synced, and only then renamed: a
    /// cancelled or failed backup leaves nothing under the final name.
    /// </summary>
    public Task<BackupResult> BackupAsync(string destinationDirectory, BackupOptions? options = null, CancellationToken cancellationToken = default) =>
        throw new NotImplementedException();

    /// <summary>
    /// Makes a new store in <paramref name="destinationDirectory"/> from the backup in
    /// <paramref name="backupDirectory"/>, replaying archived journal files on top when
    /// <see cref="RestoreOptions.JournalArchiveDirectory"/> is set. Refuses a destination that is
    /// not empty or that a process has open.
    /// </summary>
    public static Task<RestoreResult> RestoreAsync(string backupDirectory, string destinationDirectory, RestoreOptions? options = null,
        CancellationToken cancellationToken = default) =>
        throw new NotImplementedException();
}
