namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>
    /// Backs up the store's engine (documents, indexes and anything else in it) while sessions go
    /// on: <see cref="StorageEnvironment.BackupAsync"/>. Restore with
    /// <see cref="StorageEnvironment.RestoreAsync"/> and open the restored directory.
    /// </summary>
    public Task<BackupResult> BackupAsync(string destinationDirectory, BackupOptions? options = null, CancellationToken cancellationToken = default) =>
        Environment.BackupAsync(destinationDirectory, options, cancellationToken);

    /// <summary>Documents and bytes per collection, entries and bytes per index, and the engine's statistics.</summary>
    public DocumentStoreStatistics GetStatistics() => throw new NotImplementedException();
}
