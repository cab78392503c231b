using System.Text.Json;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The document path side by side with the stores a .NET developer would otherwise pick, in one
/// process, every write durable: Voron.Documents, SQLite through Microsoft.Data.Sqlite (JSON text in
/// a table, WAL, synchronous=FULL, an index on json_extract of each queried field) and LiteDB 5.0.20.
/// The same ~1 KiB documents (<see cref="ProfileDataSet"/>) go to every engine. Workloads, each an
/// engine after the other on the same stores: a bulk insert of N documents (default 1,000,000), loads
/// by id on one and two threads, an indexed equality query and an indexed range query (Take(20)),
/// updates with expected versions from 16 callers, and single-document inserts from 1, 16, 64 and
/// 256 concurrent callers. Every timed span includes the work its writes cause: for Voron the
/// data-file flush (as the merge experiment does); SQLite and LiteDB checkpoint inside their commits.
/// Beside them the engine floor, <c>voron-kv</c> (<c>Stores/Voron/VoronKvDocumentEngine.cs</c>: the same bytes
/// through Voron.Core's merger, for insert, load and bulk), so that each Voron row has its ratio to
/// what the engine alone does (vsFloor). Every row has the process's CPU and allocated bytes per
/// operation (<see cref="ProcessCost"/>); Voron's rows say which of their targets they meet
/// (<see cref="DocumentTargets"/>); after the bulk insert, each Voron store's leaf fill per tree.
/// With <c>--encrypt</c> (or <c>--engines voron,voron-sealed</c>) Voron.Documents over a sealed
/// store runs beside voron, and its rows give the ratio to voron's against <see cref="SealedTargets"/>.
/// </summary>
internal sealed partial class DocumentsExperiment : IExperiment
{
    internal static readonly int[] InsertCallers = [1, 16, 64, 256];
    internal static readonly int[] LoadThreads = [1, 2];
    internal const int UpdateCallers = 16;
    internal const int Take = 20;
    internal static readonly string[] Engines = DocumentEngineNames.All;

    /// <summary>Every engine this suite can run, sealed ones after their twins: the order of the rows.</summary>
    private static readonly string[] RowOrder = DocumentEngineNames.WithSealed;

    private readonly long? _documents;
    private readonly TimeSpan? _duration;
    private readonly bool _warmUp;
    private readonly string[] _engines;
    private readonly string[] _workloads;
    private readonly int[] _insertCallers;

    /// <param name="documents">Documents bulk-inserted (and then read, queried, updated); default VORON_DOCS_N or 1,000,000, 20,000 with --quick.</param>
    /// <param name="duration">How long each engine runs each timed workload; default 5 s, 0.3 s with --quick.</param>
    /// <param name="warmUp">Whether every workload first runs unreported on small stores (tests skip it).</param>
    /// <param name="engines">The engines to run (<see cref="DocumentEngineNames.All"/>); default all.</param>
    /// <param name="workloads">The workloads to report (<see cref="DocumentWorkloads.All"/>); default all. The bulk insert always runs: it loads the data the others read.</param>
    /// <param name="insertCallers">The insert workload's caller counts; default <see cref="InsertCallers"/>.</param>
    /// <param name="encrypt">Whether each chosen engine that has a sealed variant runs it beside it (--encrypt).</param>
    public DocumentsExperiment(long? documents = null, TimeSpan? duration = null, bool warmUp = true,
        string[]? engines = null, string[]? workloads = null, int[]? insertCallers = null, bool encrypt = false)
    {
        _documents = documents;
        _duration = duration;
        _warmUp = warmUp;
        // An option not given arrives as null or, from the command line, as an empty list: both mean all (but the sealed variants).
        _engines = SealedTwins.InOrder(DocumentEngineCatalog.WithSealed.Select(k => (k.Name, k.UnsealedTwin)), engines, encrypt);
        _workloads = workloads is { Length: > 0 } ? workloads : DocumentWorkloads.All;
        _insertCallers = insertCallers is { Length: > 0 } ? insertCallers : InsertCallers;
    }

    public string Name => "documents";

    /// <summary>The engines this run opens (--engines).</summary>
    internal IReadOnlyList<string> EngineNames => _engines;

    /// <summary>The workloads this run reports (--workloads).</summary>
    internal IReadOnlyList<string> Workloads => _workloads;

    /// <summary>The insert workload's caller counts (--callers).</summary>
    internal IReadOnlyList<int> InsertCallerCounts => _insertCallers;

    public string Description => "JSON documents, durable: Voron.Documents vs SQLite (JSON text, WAL FULL) and LiteDB: inserts from 1-256 callers, loads, queries, updates, bulk";

    internal static long? DocumentsFromEnvironment()
    {
        var text = Environment.GetEnvironmentVariable("VORON_DOCS_N");
        if (string.IsNullOrWhiteSpace(text))
        {
            return null;
        }

        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var n) && n is >= 1000 and <= 100_000_000
            ? n
            : throw new ArgumentException($"VORON_DOCS_N must be a document count from 1,000 to 100,000,000, not '{text}'.");
    }

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? DocumentsFromEnvironment() ?? (context.Quick ? 20_000 : 1_000_000);
        var duration = _duration ?? (context.Quick ? TimeSpan.FromMilliseconds(300) : TimeSpan.FromSeconds(5));
        var report = context.NewReport(Name, "Documents: Voron.Documents beside SQLite and LiteDB, durable");
        report.AddFact("documents", documents);
        report.AddFact("secondsPerRun", duration.TotalSeconds);
        report.AddFact("engines", string.Join(",", _engines));
        report.AddFact("workloads", string.Join(",", _workloads));
        var sizes = Enumerable.Range(0, 1000).Select(i => JsonSerializer.SerializeToUtf8Bytes(ProfileDataSet.Create(i), ProfileJson.Default.Profile).Length).ToList();
        report.AddFact("documentJsonBytes", $"mean {sizes.Average():F0}, min {sizes.Min()}, max {sizes.Max()} (first 1,000 documents, System.Text.Json camelCase)");

        // Warm-up, not reported: every workload of every engine on small stores of their own, so the
        // first measured workload (the bulk insert) does not pay for just-in-time compilation.
        if (_warmUp)
        {
            context.Progress("warming up every engine on small stores (not reported)");
            var warmUp = TimeSpan.FromTicks(Math.Min(duration.Ticks, TimeSpan.FromMilliseconds(100).Ticks));
            await RunEnginesAsync(context, "warm-up-", engines => RunWorkloadsAsync(context, report: null, engines, Math.Min(2000, documents), warmUp, feedRows: null, "warm-up-")).ConfigureAwait(false);
        }

        var feedRows = new List<(string Column, object? Value)[]>();
        var results = await RunEnginesAsync(context, "", engines =>
        {
            foreach (var engine in engines)
            {
                report.AddFact($"durability.{engine.Name}", engine.Durability);
            }

            return RunWorkloadsAsync(context, report, engines, documents, duration, feedRows, "");
        }).ConfigureAwait(false);
        AddRows(report, results);
        foreach (var row in feedRows)
        {
            report.AddRow(row);
        }

        AddTargetCounts(report);
        SealedTargets.AddSummary(report,
            $"writes ({DocumentWorkloads.Bulk}, {DocumentWorkloads.Update}, {DocumentWorkloads.Insert}) {SealedTargets.Describe(SealedTargets.Writes)}; " +
            $"reads ({DocumentWorkloads.Load}, {DocumentWorkloads.QueryEqual}, {DocumentWorkloads.QueryRange}) {SealedTargets.Describe(SealedTargets.Reads)}: " +
            "the issue's targets for durable writes and for point reads and scans, applied to the document path");

        report.AddNote("Targets (ratios from one run, on voron's rows: target and met, yes/no/n-a per target in the target's order): insert at 64 callers " +
                       ">= 10x SQLite and >= 0.5x the engine floor (vsFloor); insert from 1 caller >= 1.5x SQLite; bulk >= 2x SQLite's batched insert, >= 0.5x " +
                       "the floor's bulk put and >= 100,000 documents per second; load on 1 and 2 threads >= 3x SQLite; query-eq and query-range >= 1.5x SQLite. " +
                       "The facts targetsMet and targetsMissed count them.");
        report.AddNote("The change feed's rows (voron only, column variant): feed-read reads the bulk insert's history through " +
                       "DocumentStore.Changes(0) without and with the JSON (includeJson), in interleaved rounds (3; 1 with --quick), target >= 200,000 " +
                       "changes/s without the JSON; feed-latency saves 1,000 profiles per second paced (open loop) for --seconds while one consumer " +
                       "reads Changes live, and times each save from SaveChangesAsync completing to its change arriving (matched by the save's " +
                       "version; a change that arrived before the save's continuation ran counts 0 ms), target p99 <= 5 ms; feed-cost inserts at " +
                       "64 callers into two new stores, the change feed on and off, --seconds split over the interleaved rounds (the order " +
                       "alternating), vsFeedOff = on's rate over off's, target >= 0.9 (the feed's bookkeeping costs at most 10%).");
        report.AddNote("voron-kv is the engine floor: Voron.Core alone, its StorageEnvironment opened as the document store opens its own (Durable, the same " +
                       "options), one tree, key = the id's UTF-8 bytes, value = the profile's JSON from the same source-generated serializer (serialized in the " +
                       "timed operation, as a save does). insert: one StorageEnvironment.ExecuteAsync put per operation (the merger), the same callers; bulk: the " +
                       "same N values in transactions of 10,000 through ExecuteAsync, one in flight while the next is serialized (as BulkInsertAsync); load: a " +
                       "read transaction, TryGet and deserialization. It has no rows for query-eq, query-range and update: a query needs index trees and an " +
                       "update a version, which the floor does not keep. vsFloor: voron's opsPerSec over voron-kv's, same workload and callers.");
        report.AddNote("cpuUsPerOp and allocBytesPerOp: the process's CPU time (Environment.CpuUsage, every thread: callers, merger, flusher, GC, the load model) " +
                       "and its managed allocations (GC.GetTotalAllocatedBytes, every thread) over the run, divided by ops; for bulk, per document. Measured around " +
                       "the whole scenario, so they include the load generator's own work (ProfileDataSet.Create builds every inserted document), the callers' " +
                       "set-up and the settle (Voron's data-file flush). SQLite's and LiteDB's native allocations (SQLite's mallocs) are not counted; their CPU is.");
        report.AddNote("leafFill.<engine>.<tree> (facts, after the bulk insert, untimed): entries, pages by kind and the leaves' used bytes over their capacity, " +
                       "walked as the filesize experiment walks a store; @docs is the documents tree, @docs.col/* the collection, @docs.idx/* the indexes.");
        report.AddNote("Every timed span includes the work its writes cause: Voron's rows end with the store's data-file flush (timed); SQLite and " +
                       "LiteDB checkpoint their logs inside commits. Callers are closed loops: each starts its next operation when the last completed.");
        report.AddNote("Each row is one scenario of the load model (Voron.LoadTests/Load: KeepConstant copies = callers, one step named after the workload); " +
                       "latencies from HdrHistogram (3 significant digits); the engines' order rotates from one workload and caller count to the next. " +
                       "A query that found nothing (possible on a small data set) is not in ops.");
        report.AddNote("Each operation is one unit of work as an app writes it: a Voron session per operation (Store + SaveChangesAsync, LoadAsync, " +
                       "Query(...).Take(20).ToListAsync); for SQLite a transaction per write under one writer lock, a connection per reader; " +
                       "for LiteDB its thread-safe LiteDatabase. Every read returns deserialized objects.");
        report.AddNote("update: load, change, save only if the version is still the loaded one (Voron: the session's expected version; SQLite: " +
                       "UPDATE ... WHERE version = $loaded; LiteDB: a Version field checked in a transaction); conflicts are counted and not in ops.");
        report.AddNote("bulk: one operation of N documents (p50Ms = p99Ms = its duration); Voron's BulkInsertAsync (10,000 per transaction), " +
                       "SQLite's prepared insert in transactions of 10,000, LiteDB's InsertBulk (10,000 per batch); indexes defined before.");
        return report;
    }

    /// <summary>Opens the chosen engines on fresh directories, runs <paramref name="run"/>, and closes them.</summary>
    private async Task<List<DocumentRunResult>> RunEnginesAsync(ExperimentContext context, string prefix, Func<List<IDocumentEngine>, Task<List<DocumentRunResult>>> run)
    {
        var engines = new List<IDocumentEngine>();
        try
        {
            foreach (var kind in DocumentEngineCatalog.WithSealed.Where(k => _engines.Contains(k.Name)))
            {
                engines.Add(await kind.OpenAsync(context.NewDirectory(prefix + kind.Name)).ConfigureAwait(false));
            }

            return await run(engines).ConfigureAwait(false);
        }
        finally
        {
            foreach (var engine in engines)
            {
                engine.Dispose();
            }
        }
    }

    private async Task<List<DocumentRunResult>> RunWorkloadsAsync(ExperimentContext context, Report? report, List<IDocumentEngine> engines, long documents, TimeSpan duration,
        List<(string Column, object? Value)[]>? feedRows, string prefix)
    {
        var voron = engines.OfType<IChangeFeedEngine>().FirstOrDefault(e => e.Name == DocumentEngineCatalog.Voron); // the change feed's workloads are unsealed Voron's alone
        var feedRounds = context.Quick || report == null ? 1 : 3;
        var results = new List<DocumentRunResult>();
        var round = 0;

        // Runs one scenario per engine, the engines' order rotated from one workload to the next
        // (Rotation), and keeps each run whole in the report.
        async Task RunAsync(string workload, int callers, Func<IDocumentEngine, ScenarioProps> scenarioOf, Func<IDocumentEngine, ScenarioStats, DocumentRunResult> resultOf)
        {
            var reported = _workloads.Contains(workload);
            if (!reported && workload != DocumentWorkloads.Bulk)
            {
                return; // not chosen (--workloads); the bulk insert runs anyway: it loads the data
            }

            foreach (var engine in Rotation.For(engines, round))
            {
                if (!engine.Runs(workload))
                {
                    continue; // the engine floor has no queries or updates
                }

                var scenario = scenarioOf(engine);
                var cost = ProcessCost.Start(); // around the runner: the copies' set-up and the settle are in it too
                var stats = report == null || workload == DocumentWorkloads.Bulk // the bulk insert is one invocation: its rate is 0/s until it ends
                    ? await LoadRunner.RunAsync(scenario).ConfigureAwait(false)
                    : await context.RunScenarioAsync(scenario).ConfigureAwait(false);
                var spent = cost.Stop();
                ThrowOnErrors(engine, workload, callers, stats);
                var result = resultOf(engine, stats) with { Cost = spent };
                if (!reported)
                {
                    continue;
                }

                results.Add(result);
                if (report != null)
                {
                    report.AddScenario(engine.Name, workload == DocumentWorkloads.Bulk ? workload : $"{workload}, closed {callers}", round, stats);
                    context.Progress($"{result.Engine,-8} {result.Workload,-11} {result.Callers,3} callers: {result.OperationsPerSecond,11:N0} ops/s, p50 {result.P50Ms:F3} ms, p99 {result.P99Ms:F3} ms, " +
                                     $"{spent.CpuMicrosecondsPer(result.Operations):F1} us CPU/op, {spent.AllocatedBytesPer(result.Operations):F0} B/op" +
                                     (result.Conflicts > 0 ? $", {result.Conflicts} conflicts" : ""));
                    if (workload == DocumentWorkloads.Bulk)
                    {
                        AddLeafFill(report, engine);
                    }
                }
            }

            round++;
        }

        Task RunClosedAsync(string workload, int callers, bool settle, DocumentScenarios.Operation operation) =>
            RunAsync(workload, callers,
                engine => DocumentScenarios.Closed(engine, workload, callers, duration, settle, operation),
                (engine, stats) => DocumentRunResult.From(engine.Name, workload, callers, stats));

        var written = 0L;
        await RunAsync(DocumentWorkloads.Bulk, 1,
            engine =>
            {
                if (report != null)
                {
                    context.Progress($"{engine.Name,-8} bulk insert of {documents:N0} documents ...");
                }

                return DocumentScenarios.Bulk(engine, LongRange(documents).Select(ProfileDataSet.Create), n => written = n);
            },
            (engine, stats) => new DocumentRunResult(engine.Name, DocumentWorkloads.Bulk, 1, written, stats.Seconds, stats.Seconds * 1000, stats.Seconds * 1000, 0)).ConfigureAwait(false);

        if (voron != null && Reports(DocumentWorkloads.FeedRead))
        {
            await RunFeedReadAsync(context, voron, documents, feedRounds, feedRows).ConfigureAwait(false); // before any other write: the history is the bulk insert's
        }

        foreach (var threads in LoadThreads)
        {
            await RunClosedAsync(DocumentWorkloads.Load, threads, settle: false, async (handle, caller, sequence) =>
                await handle.LoadAsync(ProfileDataSet.Id(Pick(documents, caller, sequence))).ConfigureAwait(false) != null
                    ? Response.Ok()
                    : Response.Fail("missing", "a bulk-inserted document is missing")).ConfigureAwait(false);
        }

        await RunClosedAsync(DocumentWorkloads.QueryEqual, 1, settle: false, async (handle, caller, sequence) =>
            await handle.QueryEqualAsync(ProfileDataSet.City((int)(Pick(documents, caller, sequence) % ProfileDataSet.CityCount)), Take).ConfigureAwait(false) > 0
                ? Response.Ok()
                : Response.Fail(DocumentScenarios.Empty)).ConfigureAwait(false);

        await RunClosedAsync(DocumentWorkloads.QueryRange, 1, settle: false, async (handle, caller, sequence) =>
        {
            var age = 18 + (int)(Pick(documents, caller, sequence) % 68);
            return await handle.QueryRangeAsync(age, age + 3, Take).ConfigureAwait(false) > 0 ? Response.Ok() : Response.Fail(DocumentScenarios.Empty);
        }).ConfigureAwait(false);

        await RunClosedAsync(DocumentWorkloads.Update, UpdateCallers, settle: true, async (handle, caller, sequence) =>
            await handle.UpdateAsync(ProfileDataSet.Id(Pick(documents, caller, sequence)), (caller * 1_000_003) + sequence).ConfigureAwait(false)
                ? Response.Ok()
                : Response.Fail(DocumentScenarios.Conflict)).ConfigureAwait(false);

        foreach (var callers in _insertCallers)
        {
            await RunClosedAsync(DocumentWorkloads.Insert, callers, settle: true, async (handle, caller, sequence) =>
            {
                var profile = ProfileDataSet.Create(documents + (callers * 10_000_000L) + (caller * 100_000L) + sequence);
                profile.Id = $"inserted/{callers}/{caller}/{sequence}";
                await handle.InsertAsync(profile).ConfigureAwait(false);
                return Response.Ok();
            }).ConfigureAwait(false);
        }

        if (voron != null && Reports(DocumentWorkloads.FeedLatency))
        {
            await RunFeedLatencyAsync(context, voron, documents, duration, feedRows).ConfigureAwait(false);
        }

        if (voron != null && Reports(DocumentWorkloads.FeedCost))
        {
            await RunFeedCostAsync(context, prefix, documents, duration, feedRounds, feedRows).ConfigureAwait(false);
        }

        return results;
    }

    /// <summary>
    /// A failure other than a conflict or an empty query (an exception, a missing document) is a
    /// broken engine, not a figure: the experiment stops, naming it, as it did before the load model.
    /// </summary>
    private static void ThrowOnErrors(IDocumentEngine engine, string workload, int callers, ScenarioStats stats)
    {
        if (stats.FailuresExcept(DocumentScenarios.Conflict, DocumentScenarios.Empty) > 0)
        {
            var first = stats.StatusCodes.First(s => s.IsError && s.StatusCode is not DocumentScenarios.Conflict and not DocumentScenarios.Empty);
            throw new InvalidOperationException($"{engine.Name} {workload} at {callers} callers failed: {first.Count} x {first.StatusCode}: {first.Message}");
        }
    }

    /// <summary>A pseudo-random document number for a caller's operation (the same sequence for every engine).</summary>
    private static long Pick(long documents, int caller, int sequence)
    {
        var mixed = unchecked(((ulong)(uint)caller << 32 | (uint)sequence) * 0x9E3779B97F4A7C15UL);
        return (long)((mixed >> 11) % (ulong)documents);
    }

    private static IEnumerable<long> LongRange(long count)
    {
        for (long i = 0; i < count; i++)
        {
            yield return i;
        }
    }

    private static void AddRows(Report report, List<DocumentRunResult> results)
    {
        // Rows in the workloads' order, each workload's engines in a fixed order whichever ran first.
        var twins = DocumentEngineCatalog.WithSealed.Where(k => k.UnsealedTwin != null).ToDictionary(k => k.Name, k => k.UnsealedTwin!);
        foreach (var result in results.GroupBy(r => (r.Workload, r.Callers)).SelectMany(g => g.OrderBy(r => Array.IndexOf(RowOrder, r.Engine))))
        {
            double? Ratio(string engine) => result.Engine == engine ? null :
                results.FirstOrDefault(r => r.Engine == engine && r.Workload == result.Workload && r.Callers == result.Callers) is { } other
                    ? result.OperationsPerSecond / other.OperationsPerSecond
                    : null;
            var voron = result.Engine == DocumentEngineCatalog.Voron;
            var vsSqlite = Ratio(DocumentEngineCatalog.Sqlite);
            var vsFloor = voron ? Ratio(DocumentEngineCatalog.VoronKv) : null;
            var sealedCells = twins.TryGetValue(result.Engine, out var twin)
                ? SealedTargets.Cells(twin,
                    results.FirstOrDefault(r => r.Engine == twin && r.Workload == result.Workload && r.Callers == result.Callers)?.OperationsPerSecond,
                    result.OperationsPerSecond,
                    result.Workload is DocumentWorkloads.Load or DocumentWorkloads.QueryEqual or DocumentWorkloads.QueryRange ? SealedTargets.Reads : SealedTargets.Writes)
                : [];
            report.AddRow([
                ("engine", result.Engine),
                ("workload", result.Workload),
                ("callers", result.Callers),
                ("ops", result.Operations),
                ("opsPerSec", result.OperationsPerSecond),
                ("p50Ms", result.P50Ms),
                ("p99Ms", result.P99Ms),
                ("cpuUsPerOp", result.Cost.CpuMicrosecondsPer(result.Operations)),
                ("allocBytesPerOp", result.Cost.AllocatedBytesPer(result.Operations)),
                ("vsSqlite", vsSqlite),
                ("vsLitedb", Ratio(DocumentEngineCatalog.LiteDb)),
                ("vsFloor", vsFloor),
                ("target", voron ? DocumentTargets.Describe(result.Workload, result.Callers) : null),
                ("met", voron ? DocumentTargets.Met(result.Workload, result.Callers, result.OperationsPerSecond, vsSqlite, vsFloor) : null),
                ("conflicts", result.Workload == DocumentWorkloads.Update ? result.Conflicts : null),
                .. sealedCells]);
        }
    }

    /// <summary>How many of voron's targets this run met and missed (a target without the other engine's row counts as neither).</summary>
    private static void AddTargetCounts(Report report)
    {
        var verdicts = report.Rows
            .Where(r => r.GetValueOrDefault("met") is string)
            .SelectMany(r => ((string)r["met"]!).Split(", "))
            .ToList();
        if (verdicts.Count > 0)
        {
            report.AddFact("targetsMet", verdicts.Count(v => v == "yes"));
            report.AddFact("targetsMissed", verdicts.Count(v => v == "no"));
        }
    }

    /// <summary>
    /// After a Voron engine's bulk insert, how full its trees' leaves are (appends in key order
    /// should fill pages, not split them half-empty), walked as the filesize experiment walks a
    /// store (<see cref="VoronSpace"/>): a fact per tree, the root catalog left out. Not timed.
    /// </summary>
    private static void AddLeafFill(Report report, IDocumentEngine engine)
    {
        var environment = engine.VoronEnvironment;
        if (environment == null)
        {
            return;
        }

        foreach (var tree in VoronSpace.Measure(environment).Trees.Skip(1))
        {
            report.AddFact($"leafFill.{engine.Name}.{tree.Name}",
                string.Create(CultureInfo.InvariantCulture, $"entries {tree.Entries:N0}, leaf pages {tree.LeafPages:N0}, branch pages {tree.BranchPages:N0}, overflow pages {tree.OverflowPages:N0}, leaf fill {tree.LeafFill:F3}"));
        }
    }
}
