using System.Text;
using System.Text.Json;
using Voron.LoadTests.Data;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Stores.Voron;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;
using Voron.LoadTests.Stores.Sqlite;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// Why a freshly loaded store's file is the size it is, Voron beside SQLite on the same data, for
/// four loads, each into fresh stores:
/// <list type="bullet">
/// <item><c>churn-load</c>: churn's initial load (<see cref="ChurnExperiment"/>: its seed, realistic
///   JSON records of 0.5–4 KiB under 8-byte keys, 1,000 per transaction); 50,000 (3,000 with --quick);</item>
/// <item><c>kv-seq</c> / <c>kv-random</c>: 1,000,000 (20,000 with --quick) entries of 8-byte keys and
///   100-byte values, 10,000 per transaction, in key order and in a random order;</item>
/// <item><c>documents</c>: a Voron.Documents bulk insert (BulkInsertAsync) of the documents
///   experiment's profiles with its two indexes, against SQLite storing the same JSON as that
///   experiment's SQLite engine does (docs(id, version, json) and two json_extract indexes);
///   1,000,000 (20,000 with --quick).</item>
/// </list>
/// For each: the main data file after the engine's settle and after close, every file of the store,
/// the live bytes (keys and values, or ids and JSON), and for Voron, walked with internal access
/// (<see cref="VoronSpace"/>): the allocation high-water mark, pages per tree by kind, leaf fill,
/// overflow waste, free and pending pages, the free-space structures, the journal files and the
/// scratch file. Not timed: the figures are sizes.
/// </summary>
internal sealed class FileSizeExperiment : IExperiment
{
    internal const int Seed = 20_261_127;
    internal const string ChurnLoad = "churn-load";
    internal const string KvSequential = "kv-seq";
    internal const string KvRandom = "kv-random";
    internal const string Documents = "documents";
    private const int ChurnBatch = 1_000;
    private const int KvBatch = 10_000;
    private const int KvValueBytes = 100;

    private readonly int? _records;
    private readonly int? _entries;
    private readonly int? _documents;

    /// <param name="records">churn-load records; default 50,000 (3,000 with --quick).</param>
    /// <param name="entries">kv-seq and kv-random entries; default 1,000,000 (20,000 with --quick).</param>
    /// <param name="documents">documents bulk-inserted; default 1,000,000 (20,000 with --quick).</param>
    public FileSizeExperiment(int? records = null, int? entries = null, int? documents = null)
    {
        _records = records;
        _entries = entries;
        _documents = documents;
    }

    public string Name => "filesize";

    public string Description => "why the file is large: data file, high-water mark, pages per tree by kind, leaf fill, overflow waste, journal and scratch after churn's load, 1M kv entries and a documents bulk load, against SQLite";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var records = _records ?? (context.Quick ? 3_000 : 50_000);
        var entries = _entries ?? (context.Quick ? 20_000 : 1_000_000);
        var documents = _documents ?? (context.Quick ? 20_000 : 1_000_000);
        var report = context.NewReport(Name, "File size: where a freshly loaded store's bytes go");
        report.GroupMarkdownBy("table");
        report.AddFact("churnLoadRecords", records);
        report.AddFact("kvEntries", entries);
        report.AddFact("documents", documents);
        var engines = KvEngineCatalog.Available(context, report, [KvEngineCatalog.Voron, KvEngineCatalog.Sqlite]);
        var results = new List<Result>();

        context.Progress($"building {records:N0} churn records and {entries:N0} kv entries");
        var json = new RealisticJson(ChurnExperiment.Seed);
        var churn = Enumerable.Range(0, records).Select(i => KvWrite.Put(KvDataSet.Key(i), json.Next(512, 4096))).ToArray();
        var sequential = SmallEntries(entries);
        var shuffled = (KvWrite[])sequential.Clone();
        new Random(Seed).Shuffle(shuffled);
        foreach (var kind in engines)
        {
            results.Add(LoadKv(context, kind, ChurnLoad, churn, ChurnBatch));
            results.Add(LoadKv(context, kind, KvSequential, sequential, KvBatch));
            results.Add(LoadKv(context, kind, KvRandom, shuffled, KvBatch));
        }

        results.Add(await LoadVoronDocumentsAsync(context, documents).ConfigureAwait(false));
        if (engines.Any(k => k.Name == KvEngineCatalog.Sqlite))
        {
            results.Add(LoadSqliteDocuments(context, documents));
        }

        foreach (var result in results)
        {
            AddRows(report, result, results.FirstOrDefault(r => r.Scenario == result.Scenario && r.Engine == KvEngineCatalog.Sqlite));
        }

        report.AddNote("files: dataFileMiB is the engine's main file (voron.data, SQLite's .db) after the engine's settle (Voron: the data-file flush; SQLite: a WAL checkpoint), " +
                       "closedDataFileMiB the same after closing the store; storeMiB and closedStoreMiB count every file (journal, WAL, scratch). liveMiB: keys and values " +
                       "(documents: ids and JSON as System.Text.Json writes it). vsSqlite: closed data file over SQLite's on the same load.");
        report.AddNote("Voron only: highWaterMiB is NextPageNumber x 8 KiB (pages ever allocated); leafFill the leaves' slot and node bytes over their 8,128-byte capacity; " +
                       "overflowWasteMiB the overflow pages' bytes that hold no value bytes; free, pending and structure pages from the allocator; journalMiB the journal " +
                       "files (preallocated 1 MiB ahead of their records) while open.");
        report.AddNote("trees: one row per Voron tree (the root catalog included), pages by kind and fill; MiB is all its pages.");
        return report;
    }

    /// <summary>8-byte keys in order, 100-byte values cycling through 4,096 random arrays (as the kv experiment's small entries).</summary>
    private static KvWrite[] SmallEntries(int count)
    {
        var random = new Random(Seed);
        var values = new byte[4096][];
        for (var i = 0; i < values.Length; i++)
        {
            values[i] = new byte[KvValueBytes];
            random.NextBytes(values[i]);
        }

        return Enumerable.Range(0, count).Select(i => KvWrite.Put(KvDataSet.Key(i), values[i % values.Length])).ToArray();
    }

    private static Result LoadKv(ExperimentContext context, KvEngineKind kind, string scenario, KvWrite[] writes, int batch)
    {
        var directory = context.NewDirectory($"filesize-{scenario}-{kind.Name}");
        context.Progress($"{kind.Name,-7} {scenario}: loading {writes.Length:N0} entries, {batch:N0} per transaction");
        var result = new Result(scenario, kind.Name, writes.Length, writes.Sum(w => w.UserBytes));
        using (var engine = kind.OpenOnDisk(directory))
        {
            foreach (var chunk in writes.Chunk(batch))
            {
                engine.WriteBatch(chunk);
            }

            engine.Settle();
            result.MeasureOpen(directory, kind.MainFile, (engine as VoronKvEngine)?.Environment);
        }

        result.MeasureClosed(directory, kind.MainFile);
        Directory.Delete(directory, recursive: true);
        return result;
    }

    private static async Task<Result> LoadVoronDocumentsAsync(ExperimentContext context, int documents)
    {
        var directory = context.NewDirectory($"filesize-{Documents}-voron");
        context.Progress($"voron   {Documents}: bulk insert of {documents:N0} documents");
        var result = new Result(Documents, KvEngineCatalog.Voron, documents, LiveDocumentBytes(documents));
        using (var engine = await VoronDocumentEngine.OpenAsync(directory).ConfigureAwait(false))
        {
            await engine.BulkInsertAsync(Profiles(documents)).ConfigureAwait(false);
            engine.EndRound();
            result.MeasureOpen(directory, "voron.data", engine.Store.Environment);
        }

        result.MeasureClosed(directory, "voron.data");
        Directory.Delete(directory, recursive: true);
        return result;
    }

    private static Result LoadSqliteDocuments(ExperimentContext context, int documents)
    {
        var directory = context.NewDirectory($"filesize-{Documents}-sqlite");
        context.Progress($"sqlite  {Documents}: bulk insert of {documents:N0} documents");
        var result = new Result(Documents, KvEngineCatalog.Sqlite, documents, LiveDocumentBytes(documents));
        using (var engine = new SqliteDocumentEngine(directory))
        {
            engine.BulkInsertAsync(Profiles(documents)).GetAwaiter().GetResult();
            result.MeasureOpen(directory, "docs.db", null);
        }

        result.MeasureClosed(directory, "docs.db");
        Directory.Delete(directory, recursive: true);
        return result;
    }

    private static IEnumerable<Profile> Profiles(int count) => Enumerable.Range(0, count).Select(i => ProfileDataSet.Create(i));

    /// <summary>Ids and JSON, as both engines receive them.</summary>
    private static long LiveDocumentBytes(int count) =>
        Profiles(count).Sum(p => (long)Encoding.UTF8.GetByteCount(p.Id ?? "") + JsonSerializer.SerializeToUtf8Bytes(p, ProfileJson.Default.Profile).Length);

    private static void AddRows(Report report, Result result, Result? sqlite)
    {
        var space = result.Space;
        report.AddRow(
            ("table", "files"),
            ("scenario", result.Scenario),
            ("engine", result.Engine),
            ("entries", result.Entries),
            ("liveMiB", StoreSize.MiB(result.LiveBytes)),
            ("dataFileMiB", StoreSize.MiB(result.DataFile)),
            ("closedDataFileMiB", StoreSize.MiB(result.ClosedDataFile)),
            ("storeMiB", StoreSize.MiB(result.Store)),
            ("closedStoreMiB", StoreSize.MiB(result.ClosedStore)),
            ("dataOverLive", result.ClosedDataFile / (double)result.LiveBytes),
            ("vsSqlite", sqlite == null ? null : result.ClosedDataFile / (double)sqlite.ClosedDataFile),
            ("openVsSqlite", sqlite == null ? null : result.DataFile / (double)sqlite.DataFile),
            ("highWaterMiB", space == null ? null : StoreSize.MiB(space.HighWaterPages * Constants.PageSize)),
            ("leafPages", space?.Trees.Sum(t => t.LeafPages)),
            ("branchPages", space?.Trees.Sum(t => t.BranchPages)),
            ("overflowPages", space?.Trees.Sum(t => t.OverflowPages)),
            ("leafFill", space == null ? null : space.Trees.Sum(t => t.LeafUsedBytes) / (double)Math.Max(1, space.Trees.Sum(t => t.LeafPages) * Trees.TreePage.Capacity)),
            ("overflowWasteMiB", space == null ? null : StoreSize.MiB(space.Trees.Sum(t => t.OverflowWasteBytes))),
            ("freePages", space?.FreePages),
            ("pendingPages", space?.PendingPages),
            ("structurePages", space?.StructurePages),
            ("journalMiB", result.Engine == KvEngineCatalog.Sqlite ? null : StoreSize.MiB(result.JournalBytes)),
            ("journalFiles", result.Engine == KvEngineCatalog.Sqlite ? null : result.JournalFiles),
            ("scratchMiB", result.Engine == KvEngineCatalog.Sqlite ? null : StoreSize.MiB(result.ScratchBytes)),
            ("files", result.Files));
        foreach (var tree in space?.Trees ?? [])
        {
            report.AddRow(
                ("table", "trees"),
                ("scenario", result.Scenario),
                ("engine", result.Engine),
                ("tree", tree.Name),
                ("entries", tree.Entries),
                ("leafPages", tree.LeafPages),
                ("branchPages", tree.BranchPages),
                ("overflowPages", tree.OverflowPages),
                ("overflowRuns", tree.OverflowRuns),
                ("leafFill", tree.LeafFill),
                ("overflowWasteMiB", StoreSize.MiB(tree.OverflowWasteBytes)),
                ("MiB", StoreSize.MiB((tree.LeafPages + tree.BranchPages + tree.OverflowPages) * Constants.PageSize)));
        }
    }

    /// <summary>One load's sizes.</summary>
    private sealed class Result(string scenario, string engine, long entries, long liveBytes)
    {
        public string Scenario { get; } = scenario;

        public string Engine { get; } = engine;

        public long Entries { get; } = entries;

        public long LiveBytes { get; } = liveBytes;

        public long DataFile { get; private set; }

        public long Store { get; private set; }

        public long ClosedDataFile { get; private set; }

        public long ClosedStore { get; private set; }

        public long JournalBytes { get; private set; }

        public int JournalFiles { get; private set; }

        public long ScratchBytes { get; private set; }

        public string Files { get; private set; } = "";

        public VoronSpace? Space { get; private set; }

        public void MeasureOpen(string directory, string mainFile, StorageEnvironment? environment)
        {
            DataFile = StoreSize.OfFile(Path.Combine(directory, mainFile));
            Store = StoreSize.Of(directory);
            var journals = new DirectoryInfo(directory).EnumerateFiles("*.journal", SearchOption.AllDirectories).ToList();
            JournalBytes = journals.Sum(f => f.Length);
            JournalFiles = journals.Count;
            ScratchBytes = StoreSize.OfFile(Path.Combine(directory, "voron.scratch"));
            Files = string.Join("; ", new DirectoryInfo(directory).EnumerateFiles("*", SearchOption.AllDirectories)
                .GroupBy(f => Path.GetExtension(f.Name) is { Length: > 0 } extension ? "*" + extension : f.Name)
                .Select(g => FormattableString.Invariant($"{g.Key} {g.Count()}x {StoreSize.MiB(g.Sum(f => f.Length)):F1} MiB")));
            if (environment != null)
            {
                Space = VoronSpace.Measure(environment);
            }
        }

        public void MeasureClosed(string directory, string mainFile)
        {
            ClosedDataFile = StoreSize.OfFile(Path.Combine(directory, mainFile));
            ClosedStore = StoreSize.Of(directory);
        }
    }
}
