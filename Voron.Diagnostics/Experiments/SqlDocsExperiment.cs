using System.Globalization;
using Microsoft.Data.Sqlite;
using Voron.Diagnostics.Engines.SqlDocs;
using Voron.Diagnostics.Experiments.SqlDocs;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Load;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// SQL over documents: three front doors to the same ~1 KiB profile documents side by side in one
/// run, every write durable: <c>voron-sql-docs</c> (SQL on a <c>voron_docs</c> virtual table,
/// Microsoft.Data.Sqlite on the store's VFS with the document store bound),
/// <c>voron-documents</c> (Voron.Documents sessions and queries) and <c>sqlite</c> (stock SQLite,
/// JSON text in a table, WAL, synchronous=FULL, json_extract indexes). Every engine holds N
/// profiles, indexes on city and age, and a SQL table of N purchases that refer to profiles.
/// Workloads (<see cref="SqlDocsWorkloads"/>): lookup by id, indexed equality LIMIT 20, range
/// ORDER BY LIMIT 20, a join of the purchases with their profiles, single-document inserts from 1
/// and 64 connections, and a cross-door transaction (a purchase row and its profile) from 64.
/// Each configuration runs in interleaved rounds (round 1 of every engine, then round 2 ...), the
/// engines' order rotated each round, each round a scenario of the load model
/// (<see cref="SqlDocsScenario"/>); writing rounds end with the engine's deferred work (Voron's
/// data-file flush, WAL's checkpoint), timed with them.
/// </summary>
internal sealed class SqlDocsExperiment : IExperiment
{
    private readonly long? _documents;
    private readonly TimeSpan? _duration;
    private readonly int? _rounds;
    private readonly string[]? _engines;
    private readonly (string Workload, int Connections)[]? _configurations;
    private readonly bool _warmUp;

    /// <param name="documents">Profiles (and purchases) each engine holds; default 50,000, 5,000 with --quick.</param>
    /// <param name="duration">Time per engine per configuration, split over the rounds; default 3 s, 0.3 s with --quick.</param>
    /// <param name="rounds">Interleaved rounds per configuration; default 3, 1 with --quick.</param>
    /// <param name="engines">Engines to run (<see cref="SqlDocsEngines.All"/>); default all.</param>
    /// <param name="configurations">Workloads and connection counts; default <see cref="SqlDocsWorkloads.All"/>. Tests pass fewer.</param>
    /// <param name="warmUp">Whether every configuration first runs briefly unreported (tests skip it).</param>
    public SqlDocsExperiment(long? documents = null, TimeSpan? duration = null, int? rounds = null, string[]? engines = null,
        (string Workload, int Connections)[]? configurations = null, bool warmUp = true)
    {
        _documents = documents;
        _duration = duration;
        _rounds = rounds;
        _engines = engines is { Length: > 0 } ? engines : null; // the command line gives an empty list when --engines is absent
        _configurations = configurations;
        _warmUp = warmUp;
    }

    /// <summary>The engines this run opens, in order.</summary>
    internal IReadOnlyList<string> Engines => _engines ?? SqlDocsEngines.All;

    public string Name => "sqldocs";

    public string Description => "SQL over documents: voron_docs tables vs the document API vs stock SQLite with JSON text (WAL FULL): lookups, indexed queries, a join, inserts, cross-door transactions";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? (context.Quick ? 5_000 : 50_000);
        var duration = _duration ?? (context.Quick ? TimeSpan.FromMilliseconds(300) : TimeSpan.FromSeconds(3));
        var rounds = _rounds ?? (context.Quick ? 1 : 3);
        var names = Engines;
        var configurations = _configurations ?? SqlDocsWorkloads.All;
        var report = context.NewReport(Name, "SQL over documents: voron_docs beside the document API and stock SQLite, durable");
        report.AddFact("sqliteVersion", SqliteVersion());
        report.AddFact("documents", documents);
        report.AddFact("secondsPerEngineAndConfiguration", duration.TotalSeconds);
        report.AddFact("rounds", rounds);

        var engines = new List<ISqlDocsEngine>();
        try
        {
            foreach (var name in names)
            {
                context.Progress($"{name,-16} loading {documents:N0} profiles and {documents:N0} purchases");
                engines.Add(await SqlDocsEngines.CreateAsync(name, context.NewDirectory(name), documents).ConfigureAwait(false));
                report.AddFact($"durability.{name}", engines[^1].Durability);
                foreach (var (workload, plan) in engines[^1].Plans())
                {
                    report.AddFact($"plan.{name}.{workload}", plan);
                }
            }

            if (_warmUp)
            {
                context.Progress("warming up every engine on every configuration (not reported)");
                var warmUp = TimeSpan.FromTicks(Math.Min(duration.Ticks / rounds, TimeSpan.FromMilliseconds(200).Ticks));
                foreach (var (workload, connections) in configurations)
                {
                    foreach (var engine in engines)
                    {
                        // a run of its own, settled, so the work its writes leave is not paid by the first measured round
                        await LoadRunner.RunAsync(SqlDocsScenario.Create(engine, workload, connections, warmUp, documents, "warm", new SqlDocsScenario.RowCount())).ConfigureAwait(false);
                    }
                }
            }

            var results = new List<Row>();
            foreach (var (workload, connections) in configurations)
            {
                var totals = engines.ToDictionary(e => e.Name, _ => new Totals());
                for (var round = 1; round <= rounds; round++)
                {
                    foreach (var engine in Rotation.For(engines, round - 1)) // rotated: no engine always goes first
                    {
                        context.Progress($"{engine.Name,-16} {workload,-11} {connections,2} connections, round {round} of {rounds} ...");
                        var rows = new SqlDocsScenario.RowCount();
                        var counters = SqlCounterRows.Start(engine);
                        var stats = await context.RunScenarioAsync(SqlDocsScenario.Create(engine, workload, connections, duration / rounds, documents, $"r{round}", rows)).ConfigureAwait(false);
                        report.AddScenario(engine.Name, $"{workload}, closed {connections}", round, stats);
                        counters?.AddFactTo(report, $"sqlCounters.{engine.Name}.{workload}.{connections}.r{round}");
                        totals[engine.Name].Add(stats, rows.Value);
                    }
                }

                foreach (var engine in engines)
                {
                    var row = totals[engine.Name].Row(engine.Name, workload, connections);
                    context.Progress($"{engine.Name,-16} {workload,-11} {connections,2} connections: {row.OpsPerSecond,10:N0} ops/s, p50 {row.Rounds.P50Ms:F3} ms, " +
                                     $"p99 {row.Rounds.P99Ms:F3} ms{row.Rounds.DescribeFailures()}");
                    results.Add(row);
                }
            }

            AddRows(report, results);
        }
        finally
        {
            engines.ForEach(e => e.Dispose());
        }

        AddNotes(report);
        return report;
    }

    private static void AddRows(Report report, List<Row> results)
    {
        foreach (var result in results)
        {
            double? Ratio(string engine) => result.Engine != SqlDocsEngines.VoronSqlDocs ? null :
                results.FirstOrDefault(r => r.Engine == engine && r.Workload == result.Workload && r.Connections == result.Connections) is { } other
                    ? result.OpsPerSecond / other.OpsPerSecond
                    : null;
            var vsSqlite = Ratio(SqlDocsEngines.Sqlite);
            var vsDocuments = Ratio(SqlDocsEngines.VoronDocuments);
            var sqliteTarget = SqlDocsWorkloads.SqliteTarget(result.Workload, result.Connections);
            var documentsTarget = SqlDocsWorkloads.DocumentsTarget(result.Workload);
            report.AddRow(
                ("engine", result.Engine),
                ("workload", result.Workload),
                ("connections", result.Connections),
                ("ops", result.Rounds.Ok),
                ("opsPerSec", result.OpsPerSecond),
                ("p50Ms", result.Rounds.P50Ms),
                ("p99Ms", result.Rounds.P99Ms),
                ("rowsPerOp", SqlDocsWorkloads.Writes(result.Workload) ? null : result.Rows / (double)Math.Max(1, result.Rounds.Ok)),
                ("vsSqlite", vsSqlite),
                ("vsDocuments", vsDocuments),
                ("target", result.Engine == SqlDocsEngines.VoronSqlDocs ? Target(sqliteTarget, documentsTarget) : null),
                ("met", result.Engine == SqlDocsEngines.VoronSqlDocs ? Met(vsSqlite, sqliteTarget, vsDocuments, documentsTarget) : null),
                ("failed", result.Rounds.Failed));
        }
    }

    private static string? Target(double? sqlite, double? documents)
    {
        var parts = new List<string>();
        if (sqlite is { } s)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"vsSqlite >= {s}"));
        }

        if (documents is { } d)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"vsDocuments >= {d}"));
        }

        return parts.Count == 0 ? "none" : string.Join(", ", parts);
    }

    /// <summary>"yes", "no" or "n/a" (a target without the other engine's row to compare with), for each target of the row.</summary>
    private static string? Met(double? vsSqlite, double? sqliteTarget, double? vsDocuments, double? documentsTarget)
    {
        static string? One(double? ratio, double? target) => target == null ? null : ratio == null ? "n/a" : ratio >= target ? "yes" : "no";
        var verdicts = new[] { One(vsSqlite, sqliteTarget), One(vsDocuments, documentsTarget) }.Where(v => v != null).ToList();
        return verdicts.Count == 0 ? null : string.Join(", ", verdicts);
    }

    private static void AddNotes(Report report)
    {
        report.AddNote("Targets (ratios from one run): voron-sql-docs lookups by id and indexed queries >= 1.2x sqlite and >= 0.7x voron-documents " +
                       "(the same query through the document API); inserts and cross-door transactions from 64 connections >= 10x sqlite (WAL). " +
                       "vsSqlite and vsDocuments are voron-sql-docs' opsPerSec over the other engine's, on voron-sql-docs' rows; met says whether each target of the row holds.");
        report.AddNote("Every write is durable (durability.* facts) and every writing round ends with the work its writes cause, timed: Voron's data-file flush, " +
                       "SQLite's PASSIVE WAL checkpoint (SQLite also checkpoints inside commits every 1,000 WAL pages). Callers are closed loops (the load model's " +
                       "KeepConstant): each starts its next operation when the last completed; SQL callers are threads (a thread per copy) with a pooled " +
                       "connection each and statements prepared once, before the clock starts; document-API callers are async tasks with a session per " +
                       "operation. A round lasts until every caller has completed at least one operation: sqlite's 64-writer rounds run past their time " +
                       "while writers wait in SQLite's busy handler (it sleeps up to 100 ms between retries), and every rate is over the round's actual time.");
        report.AddNote("Rounds: opsPerSec is the operations of all rounds over their time; p50Ms and p99Ms are the percentiles of all the rounds' " +
                       "operations together (their HdrHistogram histograms added; 3 significant digits). The warm-up (not reported) runs every engine on " +
                       "every configuration first, each warm-up run settled on its own. failed: operations that threw or returned a wrong answer " +
                       "(counted by the load model, not thrown; 0 in a sound run), not in ops.");
        report.AddNote("Workloads: lookup = one profile by id; query-eq = profiles of one of 200 cities, LIMIT 20 (index on $.city); query-range = profiles with " +
                       "age in [a, a+3) ORDER BY age LIMIT 20 (index on $.age); join = 20 consecutive purchase rows (a SQL table) with their profiles' names; " +
                       "insert = one new profile per transaction; cross-door = one purchase row plus its new profile in one transaction. Every read returns " +
                       "deserialized Profile objects (System.Text.Json, the same source-generated metadata everywhere); rowsPerOp shows the engines returned the same rows.");
        report.AddNote("voron-documents has no SQL over documents, so an app does the join and the cross-door write itself: join = the purchase rows read with " +
                       "SQL from an ordinary table in the same store (Vfs), then their profiles loaded by id in one session call (LoadAsync(ids); two snapshots, " +
                       "where voron-sql-docs and sqlite read one); cross-door = the profile plus the purchase stored as a small raw document in one session " +
                       "(one transaction; no SQL row). Its cross-door ratio is shown but has no target.");
        report.AddNote("Loading (not timed): both Voron engines bulk-insert the profiles through the document API (the same documents SQL then reads) and insert " +
                       "the purchases with SQL; sqlite inserts both in transactions of 10,000. Plans: the plan.* facts are EXPLAIN QUERY PLAN of each SQL " +
                       "read (and the document API's Explain of its queries).");
    }

    private static string SqliteVersion()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        return connection.ServerVersion;
    }

    private sealed record Row(string Engine, string Workload, int Connections, RoundTotals Rounds, long Rows)
    {
        public double OpsPerSecond => Rounds.OkPerSecond;
    }

    /// <summary>One engine's totals over the rounds of one configuration.</summary>
    private sealed class Totals
    {
        private readonly RoundTotals _rounds = new();
        private long _rows;

        public void Add(ScenarioStats round, long rows)
        {
            _rounds.Add(round);
            _rows += rows;
        }

        public Row Row(string engine, string workload, int connections) => new(engine, workload, connections, _rounds, _rows);
    }
}
