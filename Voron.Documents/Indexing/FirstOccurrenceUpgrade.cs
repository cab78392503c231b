using System.Buffers;
using System.Text;
using Voron.Documents.Storage;

namespace Voron.Documents.Indexing;

/// <summary>
/// The upgrade of a document store from format 2 (or 1) to 3 (Storage/DocumentTrees.cs), at open,
/// inside the format upgrade's one write transaction: index entries read a repeated member's first
/// occurrence (JsonPathExtractor) where format 2's read the last. Only documents where a
/// single-value index path meets a repeated property name can differ, so it reads every document
/// of each collection that has indexes once, and rewrites the entries of those documents alone.
/// </summary>
/// <remarks>
/// An index still building has entries only for the documents its build reached or that were
/// written since: a document's entries are rewritten only where the tree holds one of its format-2
/// entries (otherwise the build writes format 3's when it gets there). A unique index that the
/// first occurrences would break refuses the open, saying which documents; nothing is written.
/// </remarks>
internal static class FirstOccurrenceUpgrade
{
    public static void Apply(WriteTransaction write, string storePath)
    {
        var catalog = IndexCatalog.Load(write, storePath);
        var changes = new List<(IndexRuntime Index, string Id, byte[] IdBytes, byte[][] Old, byte[][] New)>();
        foreach (var collection in catalog.Records.Select(r => r.Definition.Collection).Distinct(StringComparer.Ordinal))
        {
            var indexes = catalog.For(collection)!;
            var first = indexes.CreateExtractor();
            var last = new JsonPathExtractor(indexes.Paths, lastOccurrence: true);
            var members = write.OpenTree(DocumentTrees.CollectionTree(collection));
            var documents = write.OpenTree(DocumentTrees.Documents);
            if (members == null || documents == null)
            {
                continue;
            }

            var iterator = members.Iterate();
            for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
            {
                var idBytes = iterator.Key.ToArray();
                var id = Encoding.UTF8.GetString(idBytes);
                if (!documents.TryGet(idBytes, out var record))
                {
                    continue; // L1 is the integrity check's to report
                }

                var header = DocumentRecord.ReadHeader(record, id, storePath);
                byte[]? rented = null;
                try
                {
                    var json = DocumentRecord.Json(record, header, ref rented, id, storePath);
                    var now = indexes.ComputeEntries(json, idBytes, first);
                    if (!first.MetRepeatedMember)
                    {
                        continue; // both readings agree
                    }

                    var before = indexes.ComputeEntries(json, idBytes, last);
                    for (var i = 0; i < indexes.Indexes.Count; i++)
                    {
                        if (!before[i].SequenceEqual(now[i], ByteComparer.Instance))
                        {
                            changes.Add((indexes.Indexes[i], id, idBytes, before[i], now[i]));
                        }
                    }
                }
                finally
                {
                    if (rented != null)
                    {
                        ArrayPool<byte>.Shared.Return(rented);
                    }
                }
            }
        }

        // Written after the reads: no span over a page is alive while trees change.
        var written = new List<(Tree Tree, IndexRuntime Index, string Id, byte[] IdBytes, byte[] Key)>();
        foreach (var (index, id, idBytes, old, now) in changes)
        {
            var tree = write.OpenTree(index.TreeName);
            if (tree == null || !old.Any(key => tree.TryGet(key, out _)))
            {
                continue; // a build that has not reached the document
            }

            foreach (var key in old)
            {
                tree.Delete(key);
            }

            foreach (var key in now)
            {
                tree.Put(key, []);
                if (index.Definition.IsUnique)
                {
                    written.Add((tree, index, id, idBytes, key));
                }
            }
        }

        foreach (var (tree, index, id, idBytes, key) in written)
        {
            try
            {
                UniqueCheck.Ensure(tree, index, key, idBytes, id);
            }
            catch (UniqueConstraintException e)
            {
                throw new InvalidOperationException(
                    $"The document store at '{storePath}' cannot be upgraded to format 3: document '{id}' repeats a property name, and from format 3 on " +
                    $"indexes read a repeated property's first occurrence (as SQLite's json_extract does), which gives unique index '{index.Name}' on " +
                    $"'{index.Definition.Collection}' the value {e.Value}, held by '{e.ExistingId}'. Open the store with the version that wrote it and " +
                    "store the document without the repeated name (or change the other one); then open it with this version. Nothing was changed.", e);
            }
        }
    }
}
