using System.Buffers;
using System.Text;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents.Diagnostics;

/// <summary>
/// <see cref="DocumentStore.CheckIntegrity"/>: reads every document and index entry of one snapshot
/// and checks that they agree exactly (L1..L5 in Storage/DocumentTrees.cs; the change log's part, L4,
/// in IntegrityCheck.Changes.cs). The first disagreement throws <see cref="InvalidOperationException"/>
/// ("Integrity: ..."); a record that breaks its format, <see cref="CorruptionException"/>.
/// </summary>
internal sealed partial class IntegrityCheck
{
    private IntegrityCheck(string path) => Path = path;

    /// <summary>The store's directory, for errors.</summary>
    private string Path { get; }

    /// <summary>Checks the newest snapshot of <paramref name="environment"/>, timed as one operation.</summary>
    public static DocumentIntegrityReport Run(StorageEnvironment environment, DocumentsTelemetry telemetry)
    {
        var operation = telemetry.Start(DocumentsDiagnostics.Operations.CheckIntegrity, null);
        try
        {
            using var read = environment.BeginRead();
            var report = new IntegrityCheck(environment.Path).Check(read);
            operation.Complete();
            return report;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    private DocumentIntegrityReport Check(ReadTransaction read)
    {
        var catalog = IndexCatalog.Load(read, Path);
        var meta = read.OpenTree(DocumentTrees.Meta);
        var lastVersion = meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.VersionKey, Path);
        var docs = read.OpenTree(DocumentTrees.Documents);
        var perCollection = new Dictionary<string, long>(StringComparer.Ordinal);
        var entriesPerIndex = new Dictionary<string, long>(StringComparer.Ordinal);
        var versions = new HashSet<long>();
        var extractors = new Dictionary<string, JsonPathExtractor>(StringComparer.Ordinal);
        var counters = new Dictionary<string, long>(StringComparer.Ordinal);
        var expiring = new List<byte[]>();
        long documents = 0;
        long entries = 0;
        byte[]? rented = null;
        try
        {
            var iterator = docs?.Iterate();
            for (var more = iterator?.SeekFirst() == true; more; more = iterator!.MoveNext())
            {
                var id = iterator!.Key;
                var idText = Encoding.UTF8.GetString(id);
                var header = DocumentRecord.ReadHeader(iterator.Value, idText, Path);
                var collection = DocumentRecord.CollectionName(iterator.Value, header);
                var json = DocumentRecord.Json(iterator.Value, header, ref rented, idText, Path);
                JsonValidation.ValidateObject(json, idText);
                documents++;
                if (header.ExpiresTicks != 0)
                {
                    expiring.Add(ExpiryIndex.Key(header.ExpiresTicks, id));
                }

                perCollection[collection] = perCollection.GetValueOrDefault(collection) + 1;
                if (!versions.Add(header.Version) || header.Version > lastVersion)
                {
                    throw Violation($"document '{idText}' has version {header.Version}, {(header.Version > lastVersion ? $"above the store's last version {lastVersion}" : "which another document has too")} (L3).");
                }

                if (DocumentNames.TryParseGenerated(idText, collection, out var n))
                {
                    if (!counters.TryGetValue(collection, out var counter))
                    {
                        counter = DocumentTrees.ReadInt64(meta!, DocumentTrees.CounterKey(collection), Path);
                        counters[collection] = counter;
                    }

                    if (n > counter)
                    {
                        throw Violation($"document '{idText}' has a generated-shape id above its collection's counter {counter} (L3).");
                    }
                }

                CheckLogged(read, meta, header.Version, id, DocumentRecord.Collection(iterator.Value, header)); // L4
                var members = read.OpenTree(DocumentTrees.CollectionTree(collection));
                if (members == null || !members.TryGet(id, out _))
                {
                    throw Violation($"document '{idText}' of collection '{collection}' is not listed in the collection (L1).");
                }

                if (catalog.For(collection) is not { } indexes)
                {
                    continue;
                }

                if (!extractors.TryGetValue(collection, out var extractor))
                {
                    extractor = indexes.CreateExtractor();
                    extractors[collection] = extractor;
                }

                var computed = indexes.ComputeEntries(json, id, extractor);
                for (var x = 0; x < indexes.Indexes.Count; x++)
                {
                    var index = indexes.Indexes[x];
                    if (!index.Ready)
                    {
                        continue;
                    }

                    var tree = read.OpenTree(index.TreeName);
                    foreach (var key in computed[x])
                    {
                        if (tree == null || !tree.TryGet(key, out _))
                        {
                            throw Violation($"index '{index.Name}' on '{collection}' lacks the entry {IndexKey.DescribeValues(key.AsSpan(0, key.Length - id.Length), index.ComponentCount)} of document '{idText}' (L2).");
                        }
                    }

                    entriesPerIndex[index.TreeName] = entriesPerIndex.GetValueOrDefault(index.TreeName) + computed[x].Length;
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

        foreach (var name in read.GetTreeNames())
        {
            if (name.StartsWith(DocumentTrees.CollectionPrefix, StringComparison.Ordinal))
            {
                var collection = name[DocumentTrees.CollectionPrefix.Length..];
                var count = read.OpenTree(name)!.Count;
                if (count != perCollection.GetValueOrDefault(collection))
                {
                    throw Violation($"collection '{collection}' lists {count} documents, but {perCollection.GetValueOrDefault(collection)} documents belong to it (L1).");
                }
            }
            else if (name.StartsWith(DocumentTrees.IndexPrefix, StringComparison.Ordinal))
            {
                entries += CheckIndexTree(read, catalog, name, entriesPerIndex);
            }
        }

        CheckChangeLog(read, lastVersion); // L4
        CheckExpiryTree(read, expiring);
        return new DocumentIntegrityReport(documents, perCollection.Count(c => c.Value > 0), catalog.Records.Count, entries, lastVersion);
    }

    /// <summary>A ready index holds exactly the computed entries (counted above); a building one, none that its documents do not compute.</summary>
    private long CheckIndexTree(ReadTransaction read, IndexCatalog catalog, string treeName, Dictionary<string, long> computed)
    {
        var tree = read.OpenTree(treeName)!;
        var index = catalog.Records.Select(r => r.Definition)
            .Select(d => catalog.For(d.Collection)!.Find(d.Name)!)
            .FirstOrDefault(i => i.TreeName == treeName)
            ?? throw Violation($"index tree '{treeName}' has no definition (L2).");
        if (index.Ready)
        {
            if (tree.Count != computed.GetValueOrDefault(treeName))
            {
                throw Violation($"index '{index.Name}' on '{index.Definition.Collection}' holds {tree.Count} entries, but its documents compute {computed.GetValueOrDefault(treeName)} (L2).");
            }

            return tree.Count;
        }

        var indexes = new CollectionIndexes(index.Definition.Collection, [(index.Definition, false)]);
        var extractor = indexes.CreateExtractor();
        var docs = read.OpenTree(DocumentTrees.Documents);
        var iterator = tree.Iterate();
        long count = 0;
        for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
        {
            var key = iterator.Key;
            var valuesLength = IndexKey.ValuesLength(key, index.ComponentCount);
            if (valuesLength < 0 || valuesLength == key.Length)
            {
                throw new CorruptionException(Path, 0, $"an entry of index tree '{treeName}' breaks K1..K4 (Indexing/IndexKey.cs): {Convert.ToHexString(key)}.");
            }

            var id = key[valuesLength..];
            var idText = Encoding.UTF8.GetString(id);
            if (docs == null || !docs.TryGet(id, out var stored))
            {
                throw Violation($"index '{index.Name}' has an entry for document '{idText}', which does not exist (L2).");
            }

            var header = DocumentRecord.ReadHeader(stored, idText, Path);
            byte[]? rented = null;
            try
            {
                var keys = indexes.ComputeEntries(DocumentRecord.Json(stored, header, ref rented, idText, Path), id, extractor)[0];
                if (Array.BinarySearch(keys, key.ToArray(), ByteComparer.Instance) < 0)
                {
                    throw Violation($"index '{index.Name}' has an entry {IndexKey.DescribeValues(key[..valuesLength], index.ComponentCount)} that document '{idText}' does not compute (L2).");
                }
            }
            finally
            {
                if (rented != null)
                {
                    ArrayPool<byte>.Shared.Return(rented);
                }
            }

            count++;
        }

        return count;
    }

    /// <summary>L5: @docs.expires holds exactly the keys of the records with an expiry (XE2), and nothing else.</summary>
    private static void CheckExpiryTree(ReadTransaction read, List<byte[]> expected)
    {
        var tree = read.OpenTree(DocumentTrees.Expires);
        expected.Sort(ByteComparer.Instance);
        var at = 0;
        if (tree != null)
        {
            var iterator = tree.Iterate();
            for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
            {
                var key = iterator.Key;
                if (at >= expected.Count || !key.SequenceEqual(expected[at]))
                {
                    var missing = at < expected.Count && key.SequenceCompareTo(expected[at]) > 0;
                    throw Violation(missing
                        ? $"tree '{DocumentTrees.Expires}' lacks the entry of document '{Describe(expected[at])}' (L5)."
                        : $"tree '{DocumentTrees.Expires}' has the entry {Convert.ToHexString(key)} ('{Describe(key)}'), which no record with that expiry has (L5).");
                }

                if (iterator.Value.Length != 0)
                {
                    throw Violation($"tree '{DocumentTrees.Expires}' has a value of {iterator.Value.Length} bytes for '{Describe(key)}'; values are empty (L5).");
                }

                at++;
            }
        }

        if (at < expected.Count)
        {
            throw Violation($"tree '{DocumentTrees.Expires}' lacks the entry of document '{Describe(expected[at])}' (L5).");
        }
    }

    private static string Describe(ReadOnlySpan<byte> expiryKey) =>
        expiryKey.Length > ExpiryIndex.TicksSize ? Encoding.UTF8.GetString(expiryKey[ExpiryIndex.TicksSize..]) : Convert.ToHexString(expiryKey);

    private static InvalidOperationException Violation(string what) => new("Integrity: " + what);
}
