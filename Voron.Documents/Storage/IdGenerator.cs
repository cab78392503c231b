using System.Collections.Concurrent;

namespace Voron.Documents.Storage;

/// <summary>
/// Hands out the n of generated ids "&lt;collection&gt;/&lt;n&gt;" (I5 in DocumentStore.cs): one
/// in-memory counter per collection, seeded from "ctr/&lt;collection&gt;" on first use and raised by
/// every id of that shape this process stores, in whatever collection (ids are unique across the
/// store, so "Users/7" stored in "Other" takes 7 from "Users" too). A number whose id a stored
/// document already has is skipped (a store written before counters were store-wide may hold
/// such a document below the counter), so n is never one a stored document has, nor one a
/// stored document had, even after the document is deleted. A number handed to a session that
/// did not save is skipped; after a restart it may be handed out again (no document ever had it).
/// </summary>
internal sealed class IdGenerator(StorageEnvironment environment, string storePath)
{
    private readonly ConcurrentDictionary<string, Counter> _counters = new(StringComparer.Ordinal);

    /// <summary>The next generated id of <paramref name="collection"/>: one no stored document has.</summary>
    public string Next(string collection)
    {
        ref var value = ref CounterOf(collection).Value;
        while (true)
        {
            var id = DocumentNames.GeneratedId(collection, Interlocked.Increment(ref value));
            if (!Exists(id))
            {
                return id;
            }
        }
    }

    /// <summary>Raises the counter of the id's prefix when <paramref name="id"/> has the generated shape "&lt;prefix&gt;/&lt;n&gt;" (I5).</summary>
    public void ObserveId(string id)
    {
        if (DocumentNames.TryParseGeneratedShape(id, out var prefix, out var n))
        {
            Observe(prefix, n);
        }
    }

    /// <summary>Raises the collection's counter to at least <paramref name="n"/> (an explicit id of the generated shape).</summary>
    public void Observe(string collection, long n)
    {
        ref var value = ref CounterOf(collection).Value;
        for (var current = Volatile.Read(ref value); current < n; current = Volatile.Read(ref value))
        {
            if (Interlocked.CompareExchange(ref value, n, current) == current)
            {
                return;
            }
        }
    }

    private bool Exists(string id)
    {
        using var read = environment.BeginRead();
        var docs = read.OpenTree(DocumentTrees.Documents);
        return docs != null && docs.TryGet(DocumentNames.IdBytes(id), out _);
    }

    private Counter CounterOf(string collection) => _counters.GetOrAdd(collection, Seed);

    private Counter Seed(string collection)
    {
        using var read = environment.BeginRead();
        var meta = read.OpenTree(DocumentTrees.Meta);
        return new Counter { Value = meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.CounterKey(collection), storePath) };
    }

    private sealed class Counter
    {
        public long Value;
    }
}
