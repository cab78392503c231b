using System.Diagnostics;
using System.Globalization;
using System.Text;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The original before/after table of journal size on our engine: (a) inserts of new JSON-like
/// documents of 0.5–2 KiB, (b) updates that change one or two fields of existing documents; each
/// in four journal modes — full pages, page diffs, LZ4, diffs+LZ4 — in one run. Reports journal
/// bytes per transaction and per operation, durable writes per second and the share of commit time
/// spent compressing. Every commit is durable (one journal write + fdatasync).
/// </summary>
internal sealed class JournalExperiment : IExperiment
{
    internal static readonly (string Name, bool Diffs, bool Compression)[] Modes =
    [
        ("full-pages", false, false),
        ("diffs", true, false),
        ("lz4", false, true),
        ("diffs+lz4", true, true),
    ];

    private const int OperationsPerTransaction = 10;
    private readonly int? _documents;

    /// <param name="documents">Documents per workload; default 20,000 (4,000 with --quick). Tests pass fewer.</param>
    public JournalExperiment(int? documents = null)
    {
        _documents = documents;
    }

    public string Name => "journal";

    public string Description => "journal bytes and writes/s for JSON inserts and updates: full pages, diffs, LZ4, diffs+LZ4";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? (context.Quick ? 4_000 : 20_000);
        var report = new Report(Name, "Journal: page diffs and LZ4 against full pages");
        var flush = MachineExperiment.MeasureDurableWrites(Path.Combine(context.NewDirectory("machine"), "probe.bin"), 4096, context.Quick ? 200 : 1000);
        report.AddFact("fdatasyncMedianMs", flush.Median);
        report.AddFact("durability", "durable: one journal write + fdatasync per transaction; each slice of the workload ends with a data-file flush (write + fdatasync + header)");
        report.AddFact("documents", documents);
        report.AddFact("operationsPerTransaction", OperationsPerTransaction);

        var docs = Enumerable.Range(0, documents).Select(i => JsonDocumentMaker.Make(i)).ToArray();
        var random = new Random(20_261_121);
        var updates = Enumerable.Range(0, documents).Select(_ => random.Next(documents)).ToArray();
        var updated = new byte[documents][];
        for (var i = 0; i < documents; i++)
        {
            updated[i] = JsonDocumentMaker.Update(docs[updates[i]], i);
            docs[updates[i]] = updated[i];
        }

        // The four modes run side by side: each workload is cut into slices, and every slice runs
        // in every mode in turn, so a noisy moment of the machine hits all modes alike.
        var stores = Modes.Select(m =>
        {
            var options = StorageEnvironmentOptions.ForDirectory(context.NewDirectory(m.Name));
            options.JournalPageDiffs = m.Diffs;
            options.JournalCompression = m.Compression;
            options.BackgroundFlush = false; // each mode flushes its own data file at the end of its slices (Measure)
            return StorageEnvironment.Open(options);
        }).ToArray();
        var results = new List<(string Workload, string Mode, Stats Stats)>();
        try
        {
            var fresh = Enumerable.Range(0, documents).Select(i => JsonDocumentMaker.Make(i)).ToArray();
            foreach (var (workload, apply) in new (string, Action<Tree, int>)[]
                     {
                         ("insert", (tree, i) => tree.Put(Key(i), fresh[i])),
                         ("update", (tree, i) => tree.Put(Key(updates[i]), updated[i])),
                     })
            {
                context.Progress($"{workload}: {documents:N0} operations in each of {Modes.Length} modes, interleaved ...");
                var stats = Modes.Select(_ => new Stats()).ToArray();
                const int slices = 20;
                var slice = (documents + slices - 1) / slices;
                for (var from = 0; from < documents; from += slice)
                {
                    for (var m = 0; m < Modes.Length; m++)
                    {
                        Measure(stores[m], from, Math.Min(documents, from + slice), apply, stats[m]);
                    }
                }

                for (var m = 0; m < Modes.Length; m++)
                {
                    results.Add((workload, Modes[m].Name, stats[m]));
                    context.Progress($"{workload} {Modes[m].Name,-11}: {stats[m].JournalBytes / (double)stats[m].Operations,8:N0} journal bytes/op, {stats[m].OpsPerSecond,8:N0} ops/s");
                }
            }
        }
        finally
        {
            foreach (var store in stores)
            {
                store.Dispose();
            }
        }

        foreach (var (workload, mode, stats) in results)
        {
            var full = results.First(r => r.Workload == workload && r.Mode == "full-pages").Stats;
            var perOp = stats.JournalBytes / (double)stats.Operations;
            report.AddRow(
                ("workload", workload),
                ("mode", mode),
                ("transactions", stats.Transactions),
                ("journalBytesPerTx", stats.JournalBytes / (double)stats.Transactions),
                ("journalBytesPerOp", perOp),
                ("bytesVsFullPages", perOp / (full.JournalBytes / (double)full.Operations)),
                ("writesPerSec", stats.OpsPerSecond),
                ("writesVsFullPages", stats.OpsPerSecond / full.OpsPerSecond),
                ("compressionTimeShare", stats.CompressionShare));
        }

        report.AddNote("Targets: diffs alone cut journal bytes per operation by >= 37% for inserts and >= 80% for updates against full pages; " +
                       "diffs+LZ4 by >= 90% for updates; writes per second with diffs+LZ4 at least equal to full pages.");
        report.AddNote("writesPerSec counts the data-file flushes too: background flushing is off and every slice of 1/20 of the workload ends with a " +
                       "flush of the store it ran on, timed with the slice, so one mode's flush never runs during another mode's slice.");
        report.AddNote("compressionTimeShare: time spent encoding journal records (page diffs, LZ4, copying, checksums) divided by the wall time of the workload.");
        return Task.FromResult(report);
    }

    private static void Measure(StorageEnvironment env, int from, int to, Action<Tree, int> operation, Stats stats)
    {
        var bytesBefore = env.JournalBytesWritten;
        var encodeBefore = env.JournalEncodeTime;
        var watch = Stopwatch.StartNew();
        for (var start = from; start < to; start += OperationsPerTransaction)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("docs");
            for (var i = start; i < Math.Min(to, start + OperationsPerTransaction); i++)
            {
                operation(tree, i);
            }

            tx.Commit();
            stats.Transactions++;
        }

        // The slice pays for the data-file flush its commits caused. With background flushing, one
        // store's flush would run during the next mode's slice and be charged to that mode.
        env.FlushToDataFile();
        stats.Seconds += watch.Elapsed.TotalSeconds;
        stats.EncodeSeconds += (env.JournalEncodeTime - encodeBefore).TotalSeconds;
        stats.Operations += to - from;
        stats.JournalBytes += env.JournalBytesWritten - bytesBefore;
    }

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes(string.Create(CultureInfo.InvariantCulture, $"users/{i:D8}"));

    private sealed class Stats
    {
        public int Operations { get; set; }

        public int Transactions { get; set; }

        public long JournalBytes { get; set; }

        public double Seconds { get; set; }

        public double EncodeSeconds { get; set; }

        public double OpsPerSecond => Operations / Seconds;

        public double CompressionShare => EncodeSeconds / Seconds;
    }
}

/// <summary>JSON-like user documents of 0.5–2 KiB with realistic field names and values, deterministic per id.</summary>
internal static class JsonDocumentMaker
{
    private static readonly string[] FirstNames = ["Ada", "Grace", "Linus", "Barbara", "Edsger", "Margaret", "Dennis", "Frances", "Ken", "Radia"];
    private static readonly string[] Cities = ["Haifa", "London", "Zurich", "Austin", "Kyoto", "Lagos", "Lima", "Oslo", "Pune", "Perth"];
    private static readonly string[] Tags = ["admin", "beta", "billing", "eu", "gold", "mobile", "newsletter", "partner", "support", "trial"];

    public static byte[] Make(int id)
    {
        var random = new Random(id);
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{{\"id\":\"users/{id:D8}\",\"name\":\"{FirstNames[random.Next(FirstNames.Length)]} {FirstNames[random.Next(FirstNames.Length)]}son\",");
        text.Append(CultureInfo.InvariantCulture, $"\"email\":\"user{id}@example.com\",\"age\":{random.Next(18, 90)},\"city\":\"{Cities[random.Next(Cities.Length)]}\",");
        text.Append(CultureInfo.InvariantCulture, $"\"createdAt\":\"2026-{random.Next(1, 13):D2}-{random.Next(1, 29):D2}T{random.Next(24):D2}:{random.Next(60):D2}:00Z\",\"status\":\"active\",\"updatedAt\":\"2026-01-01T00:00:00Z\",");
        text.Append("\"tags\":[");
        var tags = random.Next(1, 5);
        for (var t = 0; t < tags; t++)
        {
            text.Append(CultureInfo.InvariantCulture, $"{(t > 0 ? "," : "")}\"{Tags[random.Next(Tags.Length)]}\"");
        }

        text.Append("],\"orders\":[");
        var orders = random.Next(2, 14);
        for (var o = 0; o < orders; o++)
        {
            text.Append(CultureInfo.InvariantCulture,
                $"{(o > 0 ? "," : "")}{{\"orderId\":\"orders/{random.Next(1_000_000):D7}\",\"total\":{random.Next(100, 99_999) / 100.0:F2},\"currency\":\"EUR\",\"status\":\"shipped\"}}");
        }

        text.Append("]}");
        return Encoding.UTF8.GetBytes(text.ToString());
    }

    private static readonly string[] Statuses = ["active", "paused", "closed"];

    /// <summary>
    /// Sets updatedAt and, half the time, status: one or two fields, with values of the same
    /// length (timestamps and these statuses are fixed-width), as most updates of such documents are.
    /// </summary>
    public static byte[] Update(byte[] document, int seed)
    {
        var text = Encoding.UTF8.GetString(document);
        var random = new Random(seed);
        var at = text.IndexOf("\"updatedAt\":\"", StringComparison.Ordinal) + 13;
        var stamp = string.Create(CultureInfo.InvariantCulture, $"2026-{random.Next(1, 13):D2}-{random.Next(1, 29):D2}T{random.Next(24):D2}:{random.Next(60):D2}:{random.Next(60):D2}Z");
        text = string.Concat(text.AsSpan(0, at), stamp, text.AsSpan(at + stamp.Length));
        if (random.Next(2) == 0)
        {
            var status = text.IndexOf("\"status\":\"", StringComparison.Ordinal) + 10;
            text = string.Concat(text.AsSpan(0, status), Statuses[random.Next(Statuses.Length)], text.AsSpan(status + 6));
        }

        return Encoding.UTF8.GetBytes(text);
    }
}
