using Voron.Documents.Indexing;
using Voron.Documents.Storage;

namespace Voron.Documents.Diagnostics;

/// <summary><see cref="DocumentStore.GetStatistics"/>: the documents' counts of one snapshot, then the engine's statistics.</summary>
internal static class StatisticsScan
{
    /// <summary>Collections and indexes as one read transaction of <paramref name="environment"/> sees them, and <see cref="StorageEnvironment.GetStatistics"/> taken right after.</summary>
    public static DocumentStoreStatistics Run(StorageEnvironment environment)
    {
        long transactionId;
        List<CollectionStatistics> collections;
        List<IndexStatistics> indexes;
        using (var read = environment.BeginRead())
        {
            transactionId = read.Id;
            collections = DocumentStatistics.Collections(read);
            indexes = DocumentStatistics.Indexes(read, IndexCatalog.Load(read, environment.Path));
        }

        return new DocumentStoreStatistics(transactionId, collections, indexes, environment.GetStatistics());
    }
}
