using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Experiments.Compare;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// The product's two front doors side by side on one application workload (<see cref="OrderWorkload"/>:
/// customers, products and orders as JSON; create, load, indexed query, optimistic update, report),
/// beside what a .NET developer would otherwise pick, in one process, every write durable:
/// (a) the document API, (b) SQL on <c>Vfs=voron</c> with relational tables, (c) SQL over the
/// documents through the <c>voron_docs</c> virtual tables, (d) stock SQLite (WAL, synchronous=FULL,
/// relational), (e) LiteDB. Closed loads at 1, 16 and 64 copies, the paths interleaved and their
/// order rotated each round; then an open-load sweep per path that finds its saturation rate
/// (the highest arrival rate it serves with p99 at most 10 ms). Every timed span includes the work
/// its writes cause (<see cref="IOrderPath.Settle"/>). With <c>--encrypt</c> each Voron path
/// chosen also runs over a sealed store (<c>documents-sealed</c>, <c>sql-voron-sealed</c>,
/// <c>sql-docs-sealed</c>), interleaved with it; the table "sealed ÷ unsealed" gives the ratios
/// against <see cref="SealedTargets.Compare"/>, and "peers not run" says why no encrypted SQLite
/// (SQLCipher) is beside them.
/// </summary>
internal sealed class CompareExperiment : IExperiment
{
    internal const string ClosedLoop = "closed";
    internal const string OpenLoop = "open";
    internal static readonly int[] DefaultCopies = [1, 16, 64];
    internal const string SummaryTable = "summary";
    internal const string SealedTable = "sealed ÷ unsealed";
    internal const string PeersNotRunTable = "peers not run";

    /// <summary>The encrypted SQLite a .NET developer would pick, which cannot run here.</summary>
    internal const string SqlCipherPeer = "SQLCipher (SQLitePCLRaw.bundle_e_sqlcipher)";

    /// <summary>
    /// Why <see cref="SqlCipherPeer"/> has no rows: checked against the package list of the
    /// registry copy (/work/.library/env/packages/nuget.tsv, served on 2026-12-01).
    /// </summary>
    internal const string SqlCipherWhyNot =
        "cannot run here: stock SQLite does not encrypt; an encrypted SQLite needs another native build (SQLCipher through SQLitePCLRaw.bundle_e_sqlcipher, " +
        "then PRAGMA key, or SQLite's SEE), and SQLitePCLRaw.bundle_e_sqlcipher is not in this machine's package registry copy (no row of that name in its " +
        "list; the SQLitePCLRaw bundles served are bundle_e_sqlite3, bundle_green and bundle_sqlite3, none of which encrypts), so no encrypted peer " +
        "stands beside the sealed paths";

    private readonly string[] _paths;
    private readonly int[] _copies;
    private readonly int? _rounds;
    private readonly TimeSpan? _duration;
    private readonly string[] _loops;

    /// <param name="paths">Paths to run (default all of <see cref="OrderPaths.All"/>).</param>
    /// <param name="copies">Closed-load copy counts (default 1, 16, 64).</param>
    /// <param name="rounds">Interleaved rounds of each closed load (default 3, 1 with --quick).</param>
    /// <param name="duration">Each closed run's length (default 5 s, 1 s with --quick); open sweep points last the same.</param>
    /// <param name="loops">closed, open or both (default both).</param>
    /// <param name="encrypt">Whether each chosen Voron path also runs over a sealed store, beside it (--encrypt).</param>
    public CompareExperiment(string[]? paths = null, int[]? copies = null, int? rounds = null, TimeSpan? duration = null, string[]? loops = null,
        bool encrypt = false)
    {
        // In the catalog's order, each sealed path after its twin; none given: every unsealed path.
        _paths = SealedTwins.InOrder(OrderPaths.Kinds.Select(k => (k.Name, k.UnsealedTwin)), paths, encrypt);
        _copies = copies is { Length: > 0 } ? copies : DefaultCopies;
        _rounds = rounds;
        _duration = duration;
        _loops = loops is { Length: > 0 } ? loops : [ClosedLoop, OpenLoop];
    }

    public string Name => "compare";

    /// <summary>The paths this run opens, in the order of its first round (--paths, --encrypt).</summary>
    internal IReadOnlyList<string> PathNames => _paths;

    public string Description => "the two front doors on one shop workload (orders: create, load, query, update, report): document API, SQL on Voron, SQL over documents, vs SQLite and LiteDB; closed 1/16/64 copies and open-load saturation; HTML report";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var size = context.Quick ? OrdersSize.Quick : OrdersSize.Full;
        var rounds = _rounds ?? (context.Quick ? 1 : 3);
        var duration = _duration ?? (context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(5));
        var warmUp = TimeSpan.FromTicks(Math.Min(duration.Ticks / 2, TimeSpan.FromSeconds(1).Ticks));
        var report = context.NewReport(Name, "Compare: the document API and SQL on one Voron store, beside SQLite and LiteDB, on one shop workload");
        report.GroupMarkdownBy("table");
        report.ShowGroupsFirst(SummaryTable);
        report.AddFact("data", $"{size.Customers:N0} customers, {size.Products:N0} products, {size.Orders:N0} orders preloaded per path");
        report.AddFact("mix", OrderWorkload.Describe() + $"; query: a customer's orders in a {OrderWorkload.QueryDays}-day window, at most {OrderWorkload.QueryTake}; report: count and total per status over {OrderWorkload.ReportDays} days");
        report.AddFact("secondsPerRun", duration.TotalSeconds);
        report.AddFact("rounds", rounds);
        report.AddFact("warmUpSeconds", warmUp.TotalSeconds);

        var paths = new List<(IOrderPath Path, OrderWorkload Workload)>();
        try
        {
            foreach (var name in _paths)
            {
                context.Progress($"{name}: loading {size.Orders:N0} orders, {size.Customers:N0} customers, {size.Products:N0} products (bulk path, indexes, settled)");
                var path = await OrderPaths.OpenAsync(name, context.NewDirectory(name), size, context.Disk).ConfigureAwait(false);
                paths.Add((path, new OrderWorkload(size)));
                report.AddFact($"path.{name}", path.Description);
                report.AddFact($"durability.{name}", path.Durability);
                foreach (var (query, plan) in path.Plans())
                {
                    report.AddFact($"plan.{name}.{query}", plan);
                }
            }

            var closed = _loops.Contains(ClosedLoop) ? await RunClosedAsync(context, report, paths, rounds, duration, warmUp).ConfigureAwait(false) : [];
            var saturation = _loops.Contains(OpenLoop) ? await RunOpenAsync(context, report, paths, duration, warmUp).ConfigureAwait(false) : [];
            AddSummary(report, paths.Select(p => p.Path.Name).ToList(), closed, saturation);
            AddSealed(report, paths.Select(p => p.Path.Name).ToList(), closed, saturation);
        }
        finally
        {
            foreach (var (path, _) in paths)
            {
                path.Dispose();
            }
        }

        return report;
    }

    /// <summary>Each copy count: rounds in which every path runs once, in rotated order; rows with medians over the rounds.</summary>
    private async Task<Dictionary<(string Path, int Copies), ClosedFigures>> RunClosedAsync(
        ExperimentContext context, Report report, List<(IOrderPath Path, OrderWorkload Workload)> paths, int rounds, TimeSpan duration, TimeSpan warmUp)
    {
        var figures = new Dictionary<(string Path, int Copies), ClosedFigures>();
        foreach (var copies in _copies)
        {
            var load = $"closed {copies}";
            for (var round = 0; round < rounds; round++)
            {
                foreach (var (path, workload) in Rotation.For(paths, round))
                {
                    context.Progress($"{load} copies, round {round + 1}/{rounds}: {path.Name}");
                    var scenario = workload.ScenarioOver(path, $"{path.Name} {load}")
                        .WithWarmUpDuration(warmUp)
                        .WithLoadSimulations(Simulation.KeepConstant(copies, duration));
                    var counters = SqlCounterRows.Start(path);
                    var stats = await context.RunScenarioAsync(scenario).ConfigureAwait(false);
                    report.AddScenario(path.Name, load, round + 1, stats);
                    counters?.AddTo(report, path.Name, load, round + 1);
                    var entry = figures.TryGetValue((path.Name, copies), out var existing) ? existing : figures[(path.Name, copies)] = new ClosedFigures();
                    entry.Add(stats);
                }
            }

            var sqlite = figures.GetValueOrDefault((OrderPaths.Sqlite, copies));
            foreach (var (path, _) in paths)
            {
                var entry = figures[(path.Name, copies)];
                report.AddRow(
                    ("table", "closed loads (medians over rounds)"),
                    ("path", path.Name),
                    ("copies", copies),
                    ("ops/s", entry.Operations.Median),
                    ("created/s", entry.Created.Median),
                    ("ops ×sqlite", Ratio(entry.Operations.Median, sqlite?.Operations.Median)),
                    ("created ×sqlite", Ratio(entry.Created.Median, sqlite?.Created.Median)),
                    ("p50 ms", entry.P50s.Median),
                    ("p99 ms", entry.P99s.Median),
                    ("create p99 ms", entry.StepP99(OrderWorkload.Create)),
                    ("load p99 ms", entry.StepP99(OrderWorkload.Load)),
                    ("query p99 ms", entry.StepP99(OrderWorkload.Query)),
                    ("update p99 ms", entry.StepP99(OrderWorkload.Update)),
                    ("report p99 ms", entry.StepP99(OrderWorkload.Report)),
                    ("conflicts", entry.Conflicts),
                    ("failed", entry.Failed),
                    ("spread", entry.Operations.Spread));
            }
        }

        return figures;
    }

    /// <summary>Each path alone: rising arrival rates of the same mix until p99 passes 10 ms (<see cref="SaturationSweep"/>).</summary>
    private static async Task<Dictionary<string, double>> RunOpenAsync(
        ExperimentContext context, Report report, List<(IOrderPath Path, OrderWorkload Workload)> paths, TimeSpan duration, TimeSpan warmUp)
    {
        var (start, growth, bisect) = context.Quick ? (100.0, 2.5, 0) : (200.0, 1.6, 2);
        const double maxRate = 400_000;
        report.AddFact("openP99LimitMs", SaturationSweep.P99LimitMs);
        report.AddFact("openSweep", $"from {start:N0}/s, ×{growth} per point, {bisect} bisection points, {duration.TotalSeconds} s per point, up to {maxRate:N0}/s");
        var saturation = new Dictionary<string, double>();
        foreach (var (path, workload) in paths)
        {
            var first = true;
            var (rate, reachedMax) = await SaturationSweep.FindAsync(start, growth, maxRate, bisect, async offered =>
            {
                var perSecond = (int)Math.Round(offered);
                var load = $"open {perSecond:N0}/s";
                var scenario = workload.ScenarioOver(path, $"{path.Name} {load}")
                    .WithMaxInFlight(Math.Max(100, perSecond / 4)) // a quarter second of arrivals: far past the 10 ms limit, and the backlog stays bounded
                    .WithWarmUpDuration(first ? warmUp : TimeSpan.Zero)
                    .WithLoadSimulations(Simulation.Inject(perSecond, TimeSpan.FromSeconds(1), duration));
                first = false;
                var stats = await context.RunScenarioAsync(scenario).ConfigureAwait(false);
                var ok = SaturationSweep.IsOk(stats, perSecond);
                report.AddScenario(path.Name, load, 1, stats);
                report.AddRow(
                    ("table", "open-load sweep"),
                    ("path", path.Name),
                    ("offered/s", (double)perSecond),
                    ("achieved/s", stats.Ok.Rps),
                    ("p50 ms", stats.Ok.Latency.P50Ms),
                    ("p99 ms", stats.Ok.Latency.P99Ms),
                    ("failed", stats.AllFailCount),
                    ("ok", ok));
                context.Progress($"open   {path.Name,-10} {perSecond,8:N0}/s offered: {stats.Ok.Rps,8:N0}/s done, p99 {stats.Ok.Latency.P99Ms:F2} ms{(ok ? "" : " (not ok)")}");
                return ok;
            }).ConfigureAwait(false);
            saturation[path.Name] = rate;
            context.Progress($"open   {path.Name,-10} saturation rate {rate:N0}/s{(reachedMax ? $" (every rate up to {maxRate:N0}/s was ok)" : "")}");
        }

        return saturation;
    }

    /// <summary>One row per path with the figures the issue's targets name, and notes that say whether each was reached.</summary>
    private void AddSummary(Report report, List<string> paths, Dictionary<(string Path, int Copies), ClosedFigures> closed, Dictionary<string, double> saturation)
    {
        var most = _copies.Max();
        double? Created(string path) => closed.GetValueOrDefault((path, most))?.Created.Median;
        double? Ops(string path, int copies) => closed.GetValueOrDefault((path, copies))?.Operations.Median;
        // 0 means no rate of the sweep kept up: the rate lies below the first one tried, which is
        // not a figure, so the cell stays empty and a note says so.
        double? Saturation(string path) => saturation.TryGetValue(path, out var rate) && rate > 0 ? rate : null;
        foreach (var path in paths)
        {
            var cells = new List<(string, object?)>
            {
                ("table", SummaryTable),
                ("path", path),
                ($"created/s @{most}", Created(path)),
                ($"created ×sqlite @{most}", Ratio(Created(path), Created(OrderPaths.Sqlite))),
                ($"created ×litedb @{most}", Ratio(Created(path), Created(OrderPaths.LiteDb))),
            };
            cells.AddRange(_copies.Select(c => ((string, object?))($"ops/s @{c}", Ops(path, c))));
            cells.Add(("saturation ops/s", Saturation(path)));
            cells.Add(("saturation ×sqlite", Ratio(Saturation(path), Saturation(OrderPaths.Sqlite))));
            report.AddRow([.. cells]);
        }

        var below = paths.Where(path => saturation.ContainsKey(path) && Saturation(path) == null).ToList();
        if (below.Count > 0)
        {
            report.AddNote(string.Create(CultureInfo.InvariantCulture,
                $"Saturation rate not reached by {string.Join(", ", below)}: no offered rate of the sweep ({report.Facts.FirstOrDefault(fact => fact.Key == "openSweep").Value}) kept p99 within {SaturationSweep.P99LimitMs} ms, so the rate is below the first one tried and its cells are empty."));
        }

        Target($"documents: orders created per second at {most} copies vs sqlite", Ratio(Created(OrderPaths.Documents), Created(OrderPaths.Sqlite)), 5);
        Target($"documents: orders created per second at {most} copies vs litedb", Ratio(Created(OrderPaths.Documents), Created(OrderPaths.LiteDb)), 20);
        Target($"sql-voron: orders created per second at {most} copies vs sqlite", Ratio(Created(OrderPaths.SqlVoron), Created(OrderPaths.Sqlite)), 5);
        foreach (var path in new[] { OrderPaths.Documents, OrderPaths.SqlVoron, OrderPaths.SqlDocs })
        {
            Target($"{path}: saturation rate vs sqlite", Ratio(Saturation(path), Saturation(OrderPaths.Sqlite)), 3);
        }

        void Target(string what, double? ratio, double target)
        {
            if (ratio is { } value && double.IsFinite(value))
            {
                report.AddNote(string.Create(CultureInfo.InvariantCulture,
                    $"{what}: {value:F2}× (target ≥ {target}×: {(value >= target ? "reached" : "not reached")})."));
            }
        }
    }

    /// <summary>
    /// For each sealed path that ran: its ops/s at each copy count and its saturation rate beside
    /// its twin's (n/a when the twin did not run), with the ratio against
    /// <see cref="SealedTargets.Compare"/>; and the encrypted peer that cannot run here.
    /// </summary>
    private void AddSealed(Report report, List<string> paths, Dictionary<(string Path, int Copies), ClosedFigures> closed, Dictionary<string, double> saturation)
    {
        var sealedPaths = OrderPaths.Kinds.Where(k => k.UnsealedTwin != null && paths.Contains(k.Name)).ToList();
        if (sealedPaths.Count == 0)
        {
            return;
        }

        foreach (var kind in sealedPaths)
        {
            var twin = kind.UnsealedTwin!;
            foreach (var copies in _copies.Where(c => closed.ContainsKey((kind.Name, c))))
            {
                AddRow($"closed {copies}: ops/s", closed[(kind.Name, copies)].Operations.Median, closed.GetValueOrDefault((twin, copies))?.Operations.Median);
            }

            if (saturation.ContainsKey(kind.Name))
            {
                AddRow("open: saturation ops/s", saturation[kind.Name] is > 0 and var rate ? rate : null,
                    saturation.TryGetValue(twin, out var twinRate) && twinRate > 0 ? twinRate : null);
            }

            void AddRow(string measure, double? sealedValue, double? unsealedValue) =>
                report.AddRow([("table", SealedTable), ("path", kind.Name), ("measure", measure), ("opsPerSec", sealedValue),
                    .. SealedTargets.Cells(twin, unsealedValue, sealedValue, SealedTargets.Compare)]);
        }

        report.AddRow(("table", PeersNotRunTable), ("path", SqlCipherPeer), ("why", SqlCipherWhyNot));
        report.AddNote($"{SqlCipherPeer}: {SqlCipherWhyNot}.");
        SealedTargets.AddSummary(report,
            $"each sealed path's ops/s at every closed load and its saturation rate over its twin's (the documents and SQL paths) {SealedTargets.Describe(SealedTargets.Compare)}");
    }

    private static double? Ratio(double? value, double? baseline) =>
        value is { } v && baseline is { } b && b > 0 ? v / b : null;

    /// <summary>One path at one copy count over the rounds.</summary>
    private sealed class ClosedFigures
    {
        private readonly Dictionary<string, RunSummary> _stepP99 = [];

        public RunSummary Operations { get; } = new();

        public RunSummary Created { get; } = new();

        public RunSummary P50s { get; } = new();

        public RunSummary P99s { get; } = new();

        public long Conflicts { get; private set; }

        public long Failed { get; private set; }

        public void Add(ScenarioStats stats)
        {
            Operations.Add(stats.Ok.Rps);
            Created.Add(stats.Steps.FirstOrDefault(s => s.StepName == OrderWorkload.Create)?.Ok.Rps ?? 0);
            P50s.Add(stats.Ok.Latency.P50Ms);
            P99s.Add(stats.Ok.Latency.P99Ms);
            Conflicts += stats.Steps.SelectMany(s => s.StatusCodes).Where(c => c.StatusCode == "conflict").Sum(c => c.Count);
            Failed += stats.AllFailCount;
            foreach (var step in stats.Steps)
            {
                (_stepP99.TryGetValue(step.StepName, out var summary) ? summary : _stepP99[step.StepName] = new RunSummary()).Add(step.Ok.Latency.P99Ms);
            }
        }

        public double? StepP99(string step) => _stepP99.TryGetValue(step, out var summary) ? summary.Median : null;
    }
}
