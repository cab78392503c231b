using System.Buffers.Binary;
using Voron.Journal;
using Voron.LoadTests.Experiments;

namespace Voron.Diagnostics.Experiments.Compression;

/// <summary>
/// The journal payloads of one workload, captured from a real store (<see cref="JournalPayloadCapture"/>):
/// the bytes the journal would hand to LZ4. Only payloads of at least
/// <see cref="JournalRecord.CompressionThreshold"/> bytes are kept, the ones the journal tries to compress.
/// </summary>
internal sealed record PayloadSet(string Name, string Description, IReadOnlyList<byte[]> Payloads)
{
    public long Bytes => Payloads.Sum(p => (long)p.Length);

    /// <summary>
    /// The workloads: the journal experiment's (JSON inserts and updates, 10 per transaction, with
    /// and without page diffs), the merge experiment's (1 KiB random values, one per caller per
    /// batch), and two bulk transactions (1,000 JSON documents; 10,000 of kv's entries).
    /// </summary>
    /// <param name="documents">Documents of the journal workloads (the journal experiment runs 20,000).</param>
    /// <param name="batches">Transactions of each merge workload.</param>
    /// <param name="bulkTransactions">Transactions of each bulk workload.</param>
    public static List<PayloadSet> Capture(int documents, int batches, int bulkTransactions)
    {
        var data = JournalData.Create(documents);

        var sets = new List<PayloadSet>();
        foreach (var diffs in new[] { true, false })
        {
            var suffix = diffs ? "diffs" : "pages";
            var how = diffs ? "page diffs" : "full pages";
            sets.Add(Run($"journal-insert-{suffix}", $"journal experiment: realistic JSON inserts (0.5-4 KiB), random keys, 10 per transaction, {how}", diffs, env =>
                Transactions(data.Documents.Select((doc, i) => (data.RandomKeys[i], doc)), 10, env)));
            sets.Add(Run($"journal-update-{suffix}", $"journal experiment: realistic JSON documents updated (timestamps, counters, sometimes a new entry), 10 per transaction, {how}", diffs, env =>
            {
                var inserts = data.Documents.Select((doc, i) => (data.RandomKeys[i], doc));
                return Transactions(inserts, 1_000, env, record: false)
                    .Concat(Transactions(data.Updates.Select(u => (data.RandomKeys[u.Index], u.Document)), 10, env));
            }));
        }

        foreach (var callers in new[] { 16, 256 })
        {
            sets.Add(Run($"merge-{callers}", $"merge experiment: a batch of one 1 KiB random value from each of {callers} callers per transaction, page diffs", diffs: true, env =>
            {
                var values = Enumerable.Range(0, callers).Select(MergeValue).ToArray();
                var writes = Enumerable.Range(0, batches).SelectMany(sequence => Enumerable.Range(0, callers).Select(caller => (MergeKey(caller, sequence), values[caller])));
                return Transactions(writes, callers, env);
            }));
        }

        const int bulkDocuments = 1_000, bulkEntries = 10_000;
        var bulk = JournalData.Create(bulkDocuments * bulkTransactions);
        sets.Add(Run("bulk-json", $"bulk: {bulkDocuments:N0} realistic JSON documents inserted in one transaction, keys in order, page diffs", diffs: true, env =>
            Transactions(bulk.Documents.Select((doc, i) => (bulk.SequentialKeys[i], doc)), bulkDocuments, env)));
        var kv = KvDataSet.Create(bulkEntries * bulkTransactions, KvExperiment.Seed);
        sets.Add(Run("bulk-kv", $"bulk: {bulkEntries:N0} of kv's entries (8-byte keys in order, 100 random bytes) in one transaction, page diffs", diffs: true, env =>
            Transactions(kv.Sequential.Select(w => (w.Key, w.Value!)), bulkEntries, env)));
        return sets;
    }

    /// <summary>
    /// Runs the transactions <paramref name="workload"/> yields on a fresh in-memory store without
    /// journal compression; each yielded value says whether that transaction's record counts.
    /// </summary>
    private static PayloadSet Run(string name, string description, bool diffs, Func<StorageEnvironment, IEnumerable<bool>> workload)
    {
        using var capture = new JournalPayloadCapture();
        var options = StorageEnvironmentOptions.ForFileSystem("/compression/" + name, capture);
        options.JournalPageDiffs = diffs;
        options.JournalCompression = false;
        options.BackgroundFlush = false;
        var kept = new List<byte[]>();
        using (var env = StorageEnvironment.Open(options))
        {
            var seen = capture.Payloads.Count;
            var transactions = 0;
            foreach (var counts in workload(env))
            {
                if (counts)
                {
                    kept.AddRange(capture.Payloads.Skip(seen).Where(p => p.Length >= JournalRecord.CompressionThreshold));
                }

                seen = capture.Payloads.Count;
                if (++transactions % 100 == 0)
                {
                    env.FlushToDataFile(); // lets the journal recycle its files, as background flushing would
                }
            }
        }

        return new PayloadSet(name, description, kept);
    }

    /// <summary>Commits <paramref name="writes"/> in transactions of <paramref name="perTransaction"/>, yielding <paramref name="record"/> after each.</summary>
    private static IEnumerable<bool> Transactions(IEnumerable<(byte[] Key, byte[] Value)> writes, int perTransaction, StorageEnvironment env, bool record = true)
    {
        foreach (var chunk in writes.Chunk(perTransaction))
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("docs");
            foreach (var (key, value) in chunk)
            {
                tree.Put(key, value);
            }

            tx.Commit();
            yield return record;
        }
    }

    /// <summary>The merge experiment's key: sequence then caller, big-endian, so callers interleave.</summary>
    private static byte[] MergeKey(int caller, int sequence)
    {
        var key = new byte[8];
        BinaryPrimitives.WriteInt32BigEndian(key, sequence);
        BinaryPrimitives.WriteInt32BigEndian(key.AsSpan(4), caller);
        return key;
    }

    /// <summary>The merge experiment's value: 1 KiB of random bytes, fixed per caller.</summary>
    private static byte[] MergeValue(int caller)
    {
        var value = new byte[1024];
        new Random(caller).NextBytes(value);
        return value;
    }
}
