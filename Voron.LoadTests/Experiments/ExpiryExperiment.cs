using Voron.Documents;
using Voron.LoadTests.Experiments.Expiry;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Document expiration: does a sweep of many expired documents stall writers? A durable store is
/// bulk-loaded with N expired documents (default 100,000; their expiry in the past through
/// ExpirationOptions.JsonField), then 16 writers save new ~200-byte documents (a session each,
/// closed loop) for a window without a sweep, and again while SweepExpiredAsync deletes the N
/// (BatchSize 256 per merged operation, the default). Rows: the writers' saves per second and
/// p50/p99 latency in each window, and the sweep's documents per second, alone and with writers.
/// </summary>
internal sealed class ExpiryExperiment : IExperiment
{
    internal const int Writers = 16;

    private readonly int? _documents;

    /// <param name="documents">Expired documents each sweep deletes; default 100,000, 10,000 with --quick.</param>
    public ExpiryExperiment(int? documents = null) => _documents = documents;

    public string Name => "expiry";

    public string Description => "document expiration: a sweep of 100,000 expired documents with 16 writers saving meanwhile: writers' p50/p99 with and without it, the sweep's documents/s";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? (context.Quick ? 10_000 : 100_000);
        var window = context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(5);
        var report = context.NewReport(Name, "Expiration: a sweep of expired documents beside writers");
        report.AddFact("documents", documents);
        report.AddFact("writers", Writers);
        var options = new DocumentStoreOptions { Path = context.NewDirectory("expiry"), Expiration = { Enabled = false, JsonField = "expiresAt" } };
        await using var store = DocumentStore.Open(options);
        report.AddFact("batchSize", options.Expiration.BatchSize);

        // The sweep alone.
        await LoadExpiredAsync(store, documents, "alone").ConfigureAwait(false);
        var alone = Stopwatch.StartNew();
        var deleted = await store.SweepExpiredAsync().ConfigureAwait(false);
        alone.Stop();
        context.Progress($"sweep alone: {deleted:N0} documents in {alone.Elapsed.TotalSeconds:F2} s");
        report.AddRow(("run", "sweep alone"), ("documents", deleted), ("seconds", alone.Elapsed.TotalSeconds), ("docsPerSec", deleted / alone.Elapsed.TotalSeconds),
            ("writerOps", 0), ("writerOpsPerSec", 0.0), ("p50Ms", null), ("p99Ms", null));

        // Writers without a sweep.
        var baseline = await WriteAsync(store, "base", () => Task.Delay(window)).ConfigureAwait(false);
        context.Progress($"writers alone: {baseline.Ops / baseline.Seconds:N0} saves/s, p50 {baseline.Median:F2} ms, p99 {baseline.Tail99:F2} ms");
        report.AddRow(("run", "writers alone"), ("documents", 0), ("seconds", baseline.Seconds), ("docsPerSec", null),
            ("writerOps", baseline.Ops), ("writerOpsPerSec", baseline.Ops / baseline.Seconds), ("p50Ms", baseline.Median), ("p99Ms", baseline.Tail99));

        // Writers while the sweep runs.
        await LoadExpiredAsync(store, documents, "with").ConfigureAwait(false);
        var sweep = Stopwatch.StartNew();
        var withDeleted = 0;
        var during = await WriteAsync(store, "during", async () =>
        {
            withDeleted = await store.SweepExpiredAsync().ConfigureAwait(false);
            sweep.Stop();
        }).ConfigureAwait(false);
        context.Progress($"sweep with writers: {withDeleted:N0} documents in {sweep.Elapsed.TotalSeconds:F2} s; writers {during.Ops / during.Seconds:N0} saves/s, p50 {during.Median:F2} ms, p99 {during.Tail99:F2} ms");
        report.AddRow(("run", "writers during sweep"), ("documents", withDeleted), ("seconds", sweep.Elapsed.TotalSeconds), ("docsPerSec", withDeleted / sweep.Elapsed.TotalSeconds),
            ("writerOps", during.Ops), ("writerOpsPerSec", during.Ops / during.Seconds), ("p50Ms", during.Median), ("p99Ms", during.Tail99));
        report.AddFact("p99DuringOverAlone", during.Tail99 / baseline.Tail99);
        store.CheckIntegrity();

        report.AddNote("Durable store (fdatasync per merged transaction). The sweep deletes BatchSize documents per merged operation through the same merger as the writers' saves, " +
                       "reading the expiry tree in a short read transaction per batch and yielding between batches.");
        report.AddNote("Writers: 16 closed-loop callers, each a session per save of one new ~200-byte document (StoreRaw); latency from the call to SaveChangesAsync's completion. " +
                       "'writers during sweep' runs while the sweep runs and ends with it.");
        return report;
    }

    private static async Task LoadExpiredAsync(DocumentStore store, int documents, string prefix)
    {
        var past = DateTimeOffset.UtcNow.AddMinutes(-1);
        await store.BulkInsertAsync(
            Enumerable.Range(0, documents).Select(i => new ExpiringItem { Id = $"expired/{prefix}/{i}", Owner = $"owner{i % 100}", Payload = new string('x', 100), ExpiresAt = past }),
            ExpiryJson.Default.ExpiringItem).ConfigureAwait(false);
    }

    private sealed record WriterStats(long Ops, double Seconds, double Median, double Tail99);

    /// <summary>Runs 16 closed-loop writers until <paramref name="until"/> completes; their latencies.</summary>
    private static async Task<WriterStats> WriteAsync(DocumentStore store, string prefix, Func<Task> until)
    {
        var stop = 0;
        var latencies = new List<double>[Writers];
        var elapsed = Stopwatch.StartNew();
        var writers = Enumerable.Range(0, Writers).Select(w => Task.Run(async () =>
        {
            var mine = latencies[w] = [];
            var body = System.Text.Encoding.UTF8.GetBytes($$"""{"owner":"writer{{w}}","payload":"{{new string('y', 150)}}"}""");
            for (var i = 0; Volatile.Read(ref stop) == 0; i++)
            {
                var start = Stopwatch.GetTimestamp();
                await using var session = store.OpenSession();
                session.StoreRaw("Writes", $"writes/{prefix}/{w}/{i}", body);
                await session.SaveChangesAsync().ConfigureAwait(false);
                mine.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
            }
        })).ToArray();
        await until().ConfigureAwait(false);
        Volatile.Write(ref stop, 1);
        await Task.WhenAll(writers).ConfigureAwait(false);
        elapsed.Stop();
        var all = latencies.SelectMany(l => l).Order().ToList();
        double At(double q) => all.Count == 0 ? double.NaN : all[Math.Min(all.Count - 1, (int)(q * all.Count))];
        return new WriterStats(all.Count, elapsed.Elapsed.TotalSeconds, At(0.50), At(0.99));
    }
}
