using System.Text;
using Voron.Documents.Storage;

namespace Voron.Documents.Indexing;

/// <summary>
/// The store's index definitions at one catalog generation (an immutable snapshot). Every
/// definition, drop and build completion raises the generation in "@docs.meta" in the same
/// transaction; a session's save checks inside its transaction that the generation it computed
/// its index entries with is still current (I2 in DocumentStore.cs).
/// </summary>
internal sealed class IndexCatalog
{
    private static readonly IReadOnlyList<IndexRuntime> None = [];
    private readonly Dictionary<string, CollectionIndexes> _collections;

    private IndexCatalog(long generation, Dictionary<string, CollectionIndexes> collections, List<IndexDefinitionRecord> records)
    {
        Generation = generation;
        _collections = collections;
        Records = records;
    }

    public static IndexCatalog Empty { get; } = new(0, [], []);

    public long Generation { get; }

    /// <summary>Every stored definition with its build state.</summary>
    public IReadOnlyList<IndexDefinitionRecord> Records { get; }

    /// <summary>The indexes of a collection, or null when it has none.</summary>
    public CollectionIndexes? For(string collection) => _collections.GetValueOrDefault(collection);

    public IReadOnlyList<IndexRuntime> IndexesOf(string collection) => For(collection)?.Indexes ?? None;

    public IndexDefinitionRecord? Find(string collection, string name) =>
        Records.FirstOrDefault(r => r.Definition.Collection == collection && r.Definition.Name == name);

    /// <summary>Reads the catalog a transaction sees.</summary>
    public static IndexCatalog Load(ReadTransaction transaction, string storePath)
    {
        var meta = transaction.OpenTree(DocumentTrees.Meta);
        if (meta == null)
        {
            return Empty;
        }

        var generation = DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, storePath);
        var records = new List<IndexDefinitionRecord>();
        var iterator = meta.Iterate();
        var prefix = DocumentTrees.IndexDefinitionPrefix;
        for (var more = iterator.SeekPrefix(prefix); more && iterator.Key.StartsWith(prefix); more = iterator.MoveNext())
        {
            var key = Encoding.UTF8.GetString(iterator.Key[prefix.Length..]);
            var slash = key.IndexOf('/', StringComparison.Ordinal);
            if (slash <= 0)
            {
                throw new CorruptionException(storePath, 0, $"tree '{DocumentTrees.Meta}' has an index definition key '{key}' without a collection.");
            }

            records.Add(IndexDefinitionRecord.Decode(key[..slash], key[(slash + 1)..], iterator.Value, storePath));
        }

        var collections = records.GroupBy(r => r.Definition.Collection, StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => new CollectionIndexes(g.Key, g.Select(r => (r.Definition, r.Ready))), StringComparer.Ordinal);
        return new IndexCatalog(generation, collections, records);
    }
}
