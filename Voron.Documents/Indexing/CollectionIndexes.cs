using System.Text;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents.Indexing;

/// <summary>
/// The indexes of one collection, with the union of their paths, so one pass over a document
/// (<see cref="JsonPathExtractor"/>) yields every index's entries.
/// </summary>
internal sealed class CollectionIndexes
{
    public CollectionIndexes(string collection, IEnumerable<(IndexDefinition Definition, bool Ready)> indexes)
    {
        Collection = collection;
        var paths = new List<JsonPath>();
        var runtimes = new List<IndexRuntime>();
        foreach (var (definition, ready) in indexes.OrderBy(i => i.Definition.Name, StringComparer.Ordinal))
        {
            var slots = new int[definition.JsonPaths.Count];
            for (var i = 0; i < slots.Length; i++)
            {
                var slot = paths.IndexOf(definition.JsonPaths[i]);
                if (slot < 0)
                {
                    slot = paths.Count;
                    paths.Add(definition.JsonPaths[i]);
                }

                slots[i] = slot;
            }

            runtimes.Add(new IndexRuntime(definition, ready, slots));
        }

        Paths = paths;
        Indexes = runtimes;
    }

    public string Collection { get; }

    /// <summary>Every index of the collection, building and ready, by name.</summary>
    public IReadOnlyList<IndexRuntime> Indexes { get; }

    public IReadOnlyList<JsonPath> Paths { get; }

    public JsonPathExtractor CreateExtractor() => new(Paths);

    /// <summary>
    /// An extractor of this collection's paths for one caller until it gives it back with
    /// <see cref="Return"/> (SV2): taken from a small lock-free pool, made when the pool is empty,
    /// so a save does not build one (nor a dictionary of them) each time.
    /// </summary>
    public JsonPathExtractor Rent()
    {
        var start = (uint)System.Environment.CurrentManagedThreadId % (uint)_pool.Length;
        for (var i = 0; i < _pool.Length; i++)
        {
            var slot = (int)((start + i) % (uint)_pool.Length);
            if (Volatile.Read(ref _pool[slot]) != null && Interlocked.Exchange(ref _pool[slot], null) is { } extractor)
            {
                return extractor;
            }
        }

        return CreateExtractor();
    }

    /// <summary>Gives back an extractor from <see cref="Rent"/>; the caller must not use it after (SV2). A full pool drops it.</summary>
    public void Return(JsonPathExtractor extractor)
    {
        var start = (uint)System.Environment.CurrentManagedThreadId % (uint)_pool.Length;
        for (var i = 0; i < _pool.Length; i++)
        {
            var slot = (int)((start + i) % (uint)_pool.Length);
            if (Volatile.Read(ref _pool[slot]) == null && Interlocked.CompareExchange(ref _pool[slot], extractor, null) == null)
            {
                return;
            }
        }
    }

    // SV2. A pooled extractor is used by one caller between Rent and Return, and only inside one
    //      synchronous call (no await in between): it keeps the values of its last document, so
    //      two callers sharing one would mix their index entries. Entries handed to a write are
    //      fresh arrays, never the extractor's buffers.
    private readonly JsonPathExtractor?[] _pool = new JsonPathExtractor?[Math.Max(4, System.Environment.ProcessorCount * 2)];

    public IndexRuntime? Find(string name) => Indexes.FirstOrDefault(i => i.Name == name);

    /// <summary>
    /// The entries <paramref name="json"/> (a valid JSON object) puts in each index: for each
    /// index, its keys sorted and without duplicates. Throws <see cref="ArgumentException"/> naming
    /// the document, index and path when a value cannot be indexed, and
    /// <see cref="DocumentLimitException"/> past a key limit.
    /// </summary>
    public byte[][][] ComputeEntries(ReadOnlySpan<byte> json, ReadOnlySpan<byte> id, JsonPathExtractor extractor)
    {
        if (Indexes.Count == 0)
        {
            return [];
        }

        try
        {
            extractor.Extract(json);
        }
        catch (ArgumentException e) when (e is not DocumentLimitException)
        {
            throw Unindexable(e, id);
        }

        return Entries(id, extractor);
    }

    /// <summary>
    /// SV1. One pass over a document's bytes both checks the text rules JV1 and JV2 and extracts
    /// the index values: the result, and the exception when there is one, equal those of
    /// <see cref="JsonValidation.ValidateText"/> followed by <see cref="ComputeEntries"/> — a
    /// broken text rule anywhere in the document is the error even when the extraction failed
    /// first (whenever the pass cannot vouch for the text, or throws, ValidateText runs on the
    /// whole document and decides). A collection without indexes only checks the text.
    /// </summary>
    public byte[][][] ComputeEntriesCheckingText(ReadOnlySpan<byte> json, ReadOnlySpan<byte> id, string documentId, JsonPathExtractor extractor)
    {
        if (Indexes.Count == 0)
        {
            JsonValidation.ValidateText(json, documentId);
            return [];
        }

        bool vouched;
        try
        {
            vouched = extractor.ExtractCheckingText(json);
        }
        catch (Exception e)
        {
            JsonValidation.ValidateText(json, documentId); // a broken text rule wins, as when validation ran first
            if (e is ArgumentException and not DocumentLimitException)
            {
                throw Unindexable(e, id);
            }

            throw;
        }

        if (!vouched)
        {
            JsonValidation.ValidateText(json, documentId); // throws the exact error, or the text is fine after all
        }

        return Entries(id, extractor);
    }

    private ArgumentException Unindexable(Exception e, ReadOnlySpan<byte> id) =>
        new($"Document '{Encoding.UTF8.GetString(id)}' in collection '{Collection}' cannot be indexed: {e.Message}", e);

    private byte[][][] Entries(ReadOnlySpan<byte> id, JsonPathExtractor extractor)
    {
        var result = new byte[Indexes.Count][][];
        for (var i = 0; i < Indexes.Count; i++)
        {
            result[i] = EntriesOf(Indexes[i], id, extractor);
        }

        return result;
    }

    private byte[][] EntriesOf(IndexRuntime index, ReadOnlySpan<byte> id, JsonPathExtractor extractor)
    {
        var multikey = index.MultikeyComponent;
        var count = multikey < 0 ? 1 : extractor.ValuesOf(index.Slots[multikey]).Count;
        var keys = new byte[count][];
        for (var e = 0; e < count; e++)
        {
            var length = 0;
            for (var c = 0; c < index.ComponentCount; c++)
            {
                var values = extractor.ValuesOf(index.Slots[c]);
                length += (c == multikey ? values[e] : values[0]).Length;
            }

            if (length > DocumentLimits.MaxIndexKeyBytes)
            {
                throw new DocumentLimitException("index key", length, DocumentLimits.MaxIndexKeyBytes,
                    $"Document '{Encoding.UTF8.GetString(id)}' gives index '{index.Name}' on collection '{Collection}' a key of {length} bytes; index keys are at most {DocumentLimits.MaxIndexKeyBytes} (long strings cannot be indexed).");
            }

            var key = new byte[length + id.Length];
            var offset = 0;
            for (var c = 0; c < index.ComponentCount; c++)
            {
                var values = extractor.ValuesOf(index.Slots[c]);
                var value = c == multikey ? values[e] : values[0];
                value.CopyTo(key, offset);
                offset += value.Length;
            }

            id.CopyTo(key.AsSpan(offset));
            keys[e] = key;
        }

        if (keys.Length > 1)
        {
            Array.Sort(keys, ByteComparer.Instance);
            keys = Distinct(keys);
        }

        return keys;
    }

    private static byte[][] Distinct(byte[][] sorted)
    {
        var unique = new List<byte[]>(sorted.Length) { sorted[0] };
        for (var i = 1; i < sorted.Length; i++)
        {
            if (!sorted[i].AsSpan().SequenceEqual(unique[^1]))
            {
                unique.Add(sorted[i]);
            }
        }

        return unique.Count == sorted.Length ? sorted : [.. unique];
    }
}
