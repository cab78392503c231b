using Voron.Documents.Indexing;

namespace Voron.Documents.Storage;

/// <summary>
/// Counts documents and bytes per collection and entries and bytes per index, from one read
/// transaction (DocumentStore.GetStatistics). Reads every member of every collection (and looks
/// up its record's size in "@docs") and every index entry: it costs a scan of those trees.
/// </summary>
internal static class DocumentStatistics
{
    /// <summary>Per collection: its members (the "@docs.col/&lt;collection&gt;" tree) and the sizes of their records in "@docs".</summary>
    public static List<CollectionStatistics> Collections(ReadTransaction read)
    {
        var documents = read.OpenTree(DocumentTrees.Documents);
        var collections = new List<CollectionStatistics>();
        foreach (var name in read.GetTreeNames())
        {
            if (!name.StartsWith(DocumentTrees.CollectionPrefix, StringComparison.Ordinal))
            {
                continue;
            }

            var members = read.OpenTree(name)!;
            long count = 0;
            long bytes = 0;
            var iterator = members.Iterate();
            for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
            {
                count++;
                if (documents != null && documents.TryGet(iterator.Key, out var record))
                {
                    bytes += record.Length; // a member without a record breaks L1; CheckIntegrity reports it
                }
            }

            collections.Add(new CollectionStatistics(name[DocumentTrees.CollectionPrefix.Length..], count, bytes));
        }

        return collections;
    }

    /// <summary>Per index the catalog defines (ready or still being built): entries and the bytes of their keys and values.</summary>
    public static List<IndexStatistics> Indexes(ReadTransaction read, IndexCatalog catalog)
    {
        var indexes = new List<IndexStatistics>(catalog.Records.Count);
        foreach (var record in catalog.Records)
        {
            var definition = record.Definition;
            var tree = read.OpenTree(DocumentTrees.IndexTree(definition.Collection, definition.Name));
            long entries = 0;
            long bytes = 0;
            var iterator = tree?.Iterate();
            for (var more = iterator?.SeekFirst() == true; more; more = iterator!.MoveNext())
            {
                entries++;
                bytes += iterator!.Key.Length + iterator.Value.Length;
            }

            indexes.Add(new IndexStatistics(definition.Collection, definition.Name, entries, bytes));
        }

        return indexes;
    }
}
