using System.Collections.Concurrent;

namespace Voron.Documents.Storage;

/// <summary>
/// Hands out the n of generated ids "&lt;collection&gt;/&lt;n&gt;" (I5 in DocumentStore.cs): one
/// in-memory counter per collection, seeded from "ctr/&lt;collection&gt;" on first use and raised by
/// every id of that shape this process stores, so n is never one a stored document had, even after
/// the document is deleted. A number handed to a session that did not save is skipped; after a
/// restart it may be handed out again (no document ever had it).
/// </summary>
internal sealed class IdGenerator(StorageEnvironment environment, string storePath)
{
    private readonly ConcurrentDictionary<string, Counter> _counters = new(StringComparer.Ordinal);

    public long Next(string collection) => Interlocked.Increment(ref CounterOf(collection).Value);

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
