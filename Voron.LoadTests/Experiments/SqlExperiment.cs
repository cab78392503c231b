using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// SQLite through Microsoft.Data.Sqlite three ways, side by side in one run, all durable: stock
/// SQLite in WAL mode and in its default rollback-journal mode (both synchronous=FULL), and
/// SQLite on Voron (Vfs=voron: pages in the store, every COMMIT durable in its journal). The
/// workloads: single-row insert transactions from 1, 16, 64 and 256 connections; point selects by
/// primary key and range selects on one and two threads; single-row updates of existing rows;
/// inserts into 16 databases of one store (or 16 files) at once. Every workload runs each engine
/// in interleaved rounds (round 1 of each engine, then round 2 ..., the order rotated each round),
/// each round a scenario of the load model (Load/), so a slow moment of a shared machine hits them
/// alike; each round ends with the work the engine deferred (Voron's data-file
/// flush, WAL's checkpoint), timed and counted with it. Bytes written are what the process passed
/// to write calls (/proc/self/io wchar) during the round.
/// </summary>
internal sealed partial class SqlExperiment : IExperiment
{
    internal const string Insert = "insert";
    internal const string PointSelect = "point-select";
    internal const string RangeSelect = "range-select";
    internal const string Update = "update";
    internal const string MultiDbInsert = "multi-db-insert";
    internal const int Databases = 16;

    private readonly TimeSpan? _duration;
    private readonly (string Workload, int Connections)[]? _configurations;

    /// <param name="duration">Time per engine per configuration; default 3 s (three rounds), 0.3 s with --quick. Tests pass less.</param>
    /// <param name="configurations">The workloads and connection counts to run; default <see cref="Configurations"/>.</param>
    public SqlExperiment(TimeSpan? duration = null, (string Workload, int Connections)[]? configurations = null)
    {
        _duration = duration;
        _configurations = configurations;
    }

    internal static (string Workload, int Connections)[] Configurations { get; } =
    [
        (Insert, 1), (Insert, 16), (Insert, 64), (Insert, 256),
        (PointSelect, 1), (PointSelect, 2), (RangeSelect, 1), (RangeSelect, 2),
        (Update, 1), (Update, 64),
        (MultiDbInsert, 16), (MultiDbInsert, 64),
    ];

    public string Name => "sql";

    public string Description => "SQLite on Voron (Vfs=voron) vs stock SQLite WAL and rollback, synchronous=FULL: inserts from 1-256 connections, selects, updates, 16 databases";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var duration = _duration ?? (context.Quick ? TimeSpan.FromMilliseconds(300) : TimeSpan.FromSeconds(3));
        var rounds = context.Quick || duration < TimeSpan.FromSeconds(1) ? 1 : 3;
        var rows = context.Quick ? 20_000 : 200_000;
        var report = context.NewReport(Name, "SQL: SQLite on Voron against stock SQLite, all durable");
        report.AddFact("durability", "all durable: voron acknowledges COMMIT after the journal fdatasync covering it; sqlite-wal and sqlite-rollback run synchronous=FULL");
        report.AddFact("sqliteVersion", SqliteVersion());
        report.AddFact("preloadedRows", rows);
        report.AddFact("secondsPerEngineAndConfiguration", duration.TotalSeconds);
        report.AddFact("rounds", rounds);

        var engines = SqlEngines.All.Select(name => SqlEngines.Open(name, context.NewDirectory(name))).ToList();
        try
        {
            foreach (var engine in engines)
            {
                context.Progress($"{engine.Name,-16} preloading {rows:N0} rows");
                Preload(engine, rows);
                using var connection = engine.Connect(0);
                report.AddFact($"pageSize.{engine.Name}", Scalar(connection, "PRAGMA page_size"));
            }

            var results = new List<SqlResult>();
            foreach (var (workload, connections) in _configurations ?? FromEnvironment() ?? Configurations)
            {
                var totals = engines.ToDictionary(e => e.Name, _ => new SqlTotals());
                for (var round = 1; round <= rounds; round++)
                {
                    foreach (var engine in Rotation.For(engines, round - 1)) // rotated: no engine always goes first
                    {
                        context.Progress($"{engine.Name,-16} {workload,-15} {connections,3} connections, round {round} of {rounds} ...");
                        var writes = new WriteTally(engine);
                        var counters = SqlCounterRows.Start(engine);
                        var stats = await context.RunScenarioAsync(RoundScenario(engine, workload, connections, duration / rounds, rows, writes)).ConfigureAwait(false);
                        report.AddScenario(engine.Name, LoadName(workload, connections), round, stats);
                        counters?.AddFactTo(report, $"sqlCounters.{engine.Name}.{workload}.{connections}.r{round}");
                        totals[engine.Name].Add(stats, writes);
                    }
                }

                foreach (var engine in engines)
                {
                    var result = totals[engine.Name].Result(engine.Name, workload, connections);
                    context.Progress($"{engine.Name,-16} {workload,-15} {connections,3} connections: {result.TxPerSecond,10:N0} tx/s, p99 {result.Rounds.P99Ms:F2} ms, " +
                                     $"{result.BytesPerTx:N0} bytes/tx{(result.FlushesPerCommit is { } f ? $", {f:F3} journal flushes per commit" : "")}{result.Rounds.DescribeFailures()}");
                    results.Add(result);
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

    /// <summary>
    /// Configurations named in <c>VORON_SQL_CONFIGS</c> (<c>workload:connections</c>, separated by
    /// commas, e.g. <c>insert:1,update:1</c>), for a short targeted run; null when it is not set.
    /// </summary>
    internal static (string Workload, int Connections)[]? FromEnvironment()
    {
        var text = Environment.GetEnvironmentVariable("VORON_SQL_CONFIGS");
        if (string.IsNullOrWhiteSpace(text))
        {
            return null;
        }

        return [.. text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(item =>
        {
            var parts = item.Split(':');
            var configuration = (Workload: parts[0], Connections: int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture));
            return Configurations.Contains(configuration)
                ? configuration
                : throw new ArgumentException($"VORON_SQL_CONFIGS: '{item}' is not one of {string.Join(", ", Configurations.Select(c => $"{c.Workload}:{c.Connections}"))}.");
        })];
    }

    private static void AddRows(Report report, List<SqlResult> results)
    {
        foreach (var result in results)
        {
            var wal = results.FirstOrDefault(r => r.Engine == SqlEngines.SqliteWal && r.Workload == result.Workload && r.Connections == result.Connections);
            report.AddRow(
                ("engine", result.Engine),
                ("workload", result.Workload),
                ("connections", result.Connections),
                ("transactions", result.Transactions),
                ("txPerSec", result.TxPerSecond),
                ("p50Ms", result.Rounds.P50Ms),
                ("p99Ms", result.Rounds.P99Ms),
                ("bytesWrittenPerTx", result.BytesPerTx),
                ("journalBytesPerTx", result.JournalBytesPerTx),
                ("dataBytesPerTx", result.JournalBytesPerTx is { } journal ? result.BytesPerTx - journal : null),
                ("journalFlushesPerCommit", result.FlushesPerCommit),
                ("vsSqliteWal", wal == null ? null : result.TxPerSecond / wal.TxPerSecond),
                ("bytesVsSqliteWal", wal == null || wal.BytesPerTx == 0 ? null : result.BytesPerTx / wal.BytesPerTx),
                ("failed", result.Rounds.Failed));
        }
    }

    private static void AddNotes(Report report)
    {
        report.AddNote("Targets: voron insert at 64 connections >= 10x sqlite-wal; point selects >= 0.8x sqlite-wal; " +
                       "bytes written per single-row update <= 0.2x sqlite-wal's.");
        report.AddNote("bytesWrittenPerTx: every byte the process wrote to files during the round (journal, WAL, database files, headers), " +
                       "including the engine's deferred work at the round's end (Voron's data-file flush, WAL's PASSIVE checkpoint), per transaction. " +
                       "journalBytesPerTx: the Voron journal's share (records with headers and padding); dataBytesPerTx: the rest (data file, headers). " +
                       "Stock SQLite's bytes are not split: its journal or WAL and its database file are written by the same native calls.");
        report.AddNote("journalFlushesPerCommit (voron): journal write+fdatasync pairs per COMMIT; below 1 when commits of many connections " +
                       "and databases share a flush. Stock SQLite syncs at least once per COMMIT (rollback mode several times).");
        report.AddNote("Each engine uses its default page size (pageSize.* facts): 8 KiB on Vfs=voron, where SQLite pages match store pages; " +
                       "SQLite's 4 KiB for files. Connections wait for locks with busy_timeout=60000 on every engine, so none sleeps in " +
                       "Microsoft.Data.Sqlite's 150 ms retry loop.");
        report.AddNote("Workloads: insert = INSERT of one ~100-byte row per transaction into one table; update = UPDATE of one random existing " +
                       "row's integer column; point-select = SELECT by random primary key; range-select = 100 consecutive rows from a random key; " +
                       "multi-db-insert = inserts spread over 16 databases (16 files for stock SQLite, 16 databases in one store for Voron). " +
                       "Each connection runs on its own thread and waits for its transaction before the next (a closed loop: the load model's " +
                       "KeepConstant with a thread per copy); connections are opened and statements prepared before the clock starts.");
        report.AddNote("Rounds: each configuration runs every engine in interleaved rounds, the engines' order rotated each round. txPerSec is the " +
                       "transactions of all rounds over their time; p50Ms and p99Ms are the percentiles of all the rounds' transactions " +
                       "together (their HdrHistogram histograms added; 3 significant digits). failed: transactions that threw (counted by the load model, not thrown; " +
                       "0 in a sound run), not in txPerSec.");
    }

    private static string SqliteVersion()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        return connection.ServerVersion;
    }

    private static object? Scalar(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        return command.ExecuteScalar();
    }

    /// <summary>The report's name for a configuration's load, shared by the engines (the HTML report's charts group by it).</summary>
    internal static string LoadName(string workload, int connections) => $"{workload}, closed {connections}";

    private sealed record SqlResult(string Engine, string Workload, int Connections, RoundTotals Rounds, double TxPerSecond,
        double BytesPerTx, double? JournalBytesPerTx, double? FlushesPerCommit)
    {
        public long Transactions => Rounds.Ok;
    }

    /// <summary>One engine's totals over the rounds of one configuration.</summary>
    private sealed class SqlTotals
    {
        private readonly RoundTotals _rounds = new();
        private long _bytes;
        private long _journalBytes;
        private long _journalFlushes;
        private bool _hasJournal;

        public void Add(Load.ScenarioStats stats, WriteTally writes)
        {
            _rounds.Add(stats);
            _bytes += writes.Bytes;
            if (writes.HasJournal)
            {
                _hasJournal = true;
                _journalBytes += writes.JournalBytes;
                _journalFlushes += writes.JournalFlushes;
            }
        }

        public SqlResult Result(string engine, string workload, int connections)
        {
            var transactions = _rounds.Ok;
            double PerTx(long total) => transactions == 0 ? 0 : total / (double)transactions;
            return new SqlResult(engine, workload, connections, _rounds, _rounds.OkPerSecond, PerTx(_bytes),
                _hasJournal ? PerTx(_journalBytes) : null, _hasJournal && workload is not (PointSelect or RangeSelect) ? PerTx(_journalFlushes) : null);
        }
    }
}
