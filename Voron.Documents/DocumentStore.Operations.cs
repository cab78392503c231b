using Voron.Documents.Diagnostics;

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

    /// <summary>
    /// Documents and bytes per collection and entries and bytes per index, of one snapshot, and the
    /// engine's statistics (<see cref="StorageEnvironment.GetStatistics"/>, a snapshot taken right
    /// after: compare the two transaction ids). Reads every collection member and index entry and
    /// every tree page: a scan of the store, which never blocks sessions' writes.
    /// </summary>
    public DocumentStoreStatistics GetStatistics()
    {
        ThrowIfDisposed();
        return StatisticsScan.Run(Environment);
    }
}
