using System.CommandLine;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Every suite the program runs, in the order <c>list</c> and <c>--help</c> print them: the one
/// place to register a suite and the options of its own (the common options, --quick, --dir and
/// --reports, are CommandLine's; --flush-delay is added to every suite registered as writing).
/// These are the suites a user runs to choose a store: compare (the default), kv, ycsb,
/// documents, sql, merge, churn, ops, replicate; a suite of several experiments is a <see cref="Suite"/>.
/// Every run measures the machine first (<see cref="Measurement.Preflight"/>). One-off
/// diagnostics of the engine (the machine's full grid, journal modes, the section allocator, the
/// sample app over HTTP, a journal's anatomy, stalls, system calls, file size, compressors,
/// checksums) are Voron.Diagnostics' program, which reuses this program's pieces; <see cref="Moved"/>
/// says where each old name went.
/// </summary>
internal static class ExperimentCatalog
{
    /// <summary>What a run with no experiment named does: <c>compare</c>, in quick mode (CommandLine).</summary>
    internal const string Default = "compare";

    /// <summary>The largest simulated flush delay: a second is already far slower than any disk.</summary>
    private const double MaxFlushDelayMs = 1000;

    /// <summary>Every writing experiment: a simulated slower disk (SimulatedDisk).</summary>
    internal static readonly Option<double?> FlushDelay = ExperimentOptions.Milliseconds(
        "--flush-delay",
        "SIMULATED slower disk: add MS milliseconds to every durable flush, where each store makes it (e.g. 1 for a cloud volume, 8 for a spinning disk); " +
        "every report says so and how (flushDelayMs, simulatedDisk)",
        MaxFlushDelayMs);

    /// <summary>kv: N, the number of entries.</summary>
    internal static readonly Option<int?> KvEntries = ExperimentOptions.PositiveNumber(
        "--entries", "VORON_KV_N", "entries (N) of the kv workloads; default 1,000,000, 20,000 with --quick");

    /// <summary>kv and ycsb: how many runs of each workload.</summary>
    internal static readonly Option<int?> Runs = ExperimentOptions.PositiveNumber(
        "--runs", "VORON_RUNS", "runs of each workload, the engines' order rotated each run; default 5, 2 with --quick");

    /// <summary>kv, ycsb, churn: which engines.</summary>
    internal static readonly Option<string[]?> Engines = ExperimentOptions.Names(
        "--engines", "VORON_ENGINES", "engines to run, separated by commas; default all", KvEngineCatalog.All.Select(k => k.Name).ToArray());

    /// <summary>kv: which engines, the sealed variants (voron-sealed) among them.</summary>
    internal static readonly Option<string[]?> KvEngines = ExperimentOptions.Names(
        "--engines", "VORON_ENGINES", "engines to run, separated by commas; default all but the sealed ones (--encrypt adds those)",
        KvEngineCatalog.WithSealed.Select(k => k.Name).ToArray());

    /// <summary>kv, documents, compare: each chosen Voron engine or path also runs sealed, beside it.</summary>
    internal static readonly Option<bool> Encrypt = ExperimentOptions.Switch(
        "--encrypt", "VORON_ENCRYPT",
        "encryption at rest: beside each chosen Voron engine or path, its sealed variant (the same store opened with a random 256-bit key), " +
        "interleaved with it in the same process; the rows give sealed ÷ unsealed against the targets");

    /// <summary>churn: which engines, its compacting variant (voron-compact) among them.</summary>
    internal static readonly Option<string[]?> ChurnEngines = ExperimentOptions.Names(
        "--engines", "VORON_ENGINES", "engines to run, separated by commas; default all", KvEngineCatalog.WithCompaction.Select(k => k.Name).ToArray());

    /// <summary>backup: the store's data file size.</summary>
    internal static readonly Option<int?> BackupSize = ExperimentOptions.PositiveNumber(
        "--size", "VORON_BACKUP_MIB", "MiB of data file the store is built to before it is copied and backed up; default 1024, 64 with --quick");

    /// <summary>backup: seconds of each writers' window.</summary>
    internal static readonly Option<int?> BackupSeconds = ExperimentOptions.PositiveNumber(
        "--seconds", "VORON_BACKUP_SECONDS", "seconds of each window of the writers' load, with and without backups; default 20, 5 with --quick");

    /// <summary>ops (backup and tools): rounds of each comparison.</summary>
    internal static readonly Option<int?> OpsRounds = ExperimentOptions.PositiveNumber(
        "--rounds", "VORON_OPS_ROUNDS", "rounds of each comparison (backup: cp against backups, writers with and without backups; tools: check against cat, export, import against the API), interleaved; default 3");

    /// <summary>backup: MiB of archived journal to restore.</summary>
    internal static readonly Option<int?> BackupArchive = ExperimentOptions.PositiveNumber(
        "--archive", "VORON_BACKUP_ARCHIVE_MIB", "MiB of archived journal the point-in-time restore replays; default 64, 8 with --quick");

    /// <summary>merge: the caller counts to run.</summary>
    internal static readonly Option<int[]?> MergeCallers = ExperimentOptions.List(
        "--callers", "VORON_MERGE_CALLERS", "caller counts of the closed-loop runs, separated by commas; default 1,4,16,64,256",
        MergeExperiment.ParseCallerCounts);

    /// <summary>merge: which loops to run.</summary>
    internal static readonly Option<string[]?> MergeLoops = ExperimentOptions.Names(
        "--loops", "VORON_MERGE_LOOPS", "closed, open or both (closed,open); default both", [MergeExperiment.ClosedLoopName, MergeExperiment.OpenLoopName]);

    /// <summary>compare: which paths.</summary>
    internal static readonly Option<string[]?> ComparePaths = ExperimentOptions.Names(
        "--paths", "VORON_COMPARE_PATHS", "paths to run, separated by commas; default all but the sealed ones (--encrypt adds those)", OrderPaths.WithSealed);

    /// <summary>compare: the closed loads' copy counts.</summary>
    internal static readonly Option<int[]?> CompareCopies = ExperimentOptions.List(
        "--copies", "VORON_COMPARE_COPIES", "copy counts of the closed loads, separated by commas; default 1,16,64",
        (text, source) => MergeExperiment.ParseCallerCounts(text, source));

    /// <summary>compare: seconds per run.</summary>
    internal static readonly Option<double?> CompareDuration = ExperimentOptions.Seconds(
        "--duration", "VORON_COMPARE_SECONDS", "seconds of each closed run and of each open sweep point; default 5 (1 with --quick)", 600);

    /// <summary>compare: which loads.</summary>
    internal static readonly Option<string[]?> CompareLoops = ExperimentOptions.Names(
        "--loops", "VORON_COMPARE_LOOPS", "closed, open or both (closed,open); default both", [CompareExperiment.ClosedLoop, CompareExperiment.OpenLoop]);

    /// <summary>tools: documents in the store and in each import.</summary>
    internal static readonly Option<int?> ToolsDocuments = ExperimentOptions.PositiveNumber(
        "--documents", "VORON_TOOLS_DOCUMENTS", "~1 KiB profiles in the store checked and exported, and in each import; default 1000000, 20000 with --quick");

    /// <summary>documents: documents bulk-inserted and then read, queried and updated.</summary>
    internal static readonly Option<int?> DocumentsCount = ExperimentOptions.PositiveNumber(
        "--documents", "VORON_DOCS_N", "documents bulk-inserted (then loaded, queried, updated); default 1000000, 20000 with --quick");

    /// <summary>documents: seconds of each timed run.</summary>
    internal static readonly Option<double?> DocumentsSeconds = ExperimentOptions.Seconds(
        "--seconds", "VORON_DOCS_SECONDS", "seconds each engine runs each timed workload; default 5 (0.3 with --quick)", 600);

    /// <summary>documents: which engines.</summary>
    internal static readonly Option<string[]?> DocumentsEngines = ExperimentOptions.Names(
        "--engines", "VORON_DOCS_ENGINES", "engines to run, separated by commas; default all but the sealed ones (--encrypt adds those)", Documents.DocumentEngineNames.WithSealed);

    /// <summary>documents: which workloads (the bulk insert always loads the data; it is reported only when named).</summary>
    internal static readonly Option<string[]?> DocumentsWorkloads = ExperimentOptions.Names(
        "--workloads", "VORON_DOCS_WORKLOADS", "workloads to report, separated by commas (the bulk insert always runs, to load the data); default all", Documents.DocumentWorkloads.All);

    /// <summary>documents: the insert workload's caller counts.</summary>
    internal static readonly Option<int[]?> DocumentsCallers = ExperimentOptions.List(
        "--callers", "VORON_DOCS_CALLERS", "caller counts of the insert workload, separated by commas; default 1,16,64,256",
        (text, source) => MergeExperiment.ParseCallerCounts(text, source));

    /// <summary>replicate: interleaved runs of each variant.</summary>
    internal static readonly Option<int?> ReplicateRuns = ExperimentOptions.PositiveNumber(
        "--runs", "VORON_REPLICATE_RUNS", "runs of each variant, interleaved, the order reversed every other run; default 3, 2 with --quick");

    /// <summary>replicate: the shipping workload's writer counts.</summary>
    internal static readonly Option<int[]?> ReplicateWriters = ExperimentOptions.List(
        "--writers", "VORON_REPLICATE_WRITERS", "writer counts of the shipping workload, separated by commas; default 1,16 (1,4 with --quick)",
        (text, source) => MergeExperiment.ParseCallerCounts(text, source));

    /// <summary>replicate: transactions per shipping run.</summary>
    internal static readonly Option<int?> ReplicateCommits = ExperimentOptions.PositiveNumber(
        "--commits", "VORON_REPLICATE_COMMITS", "transactions each writer commits in a shipping run (one 1 KiB put each); default 1000, 100 with --quick");

    /// <summary>replicate: MiB of values in the restored store.</summary>
    internal static readonly Option<int?> ReplicateSize = ExperimentOptions.PositiveNumber(
        "--size", "VORON_REPLICATE_MIB", "MiB of values written into the store that is restored from each destination (a snapshot half way, the rest shipped journal); default 64, 4 with --quick");

    /// <summary>replicate: documents exported to PostgreSQL.</summary>
    internal static readonly Option<int?> ReplicateDocuments = ExperimentOptions.PositiveNumber(
        "--documents", "VORON_REPLICATE_DOCUMENTS", "~1 KiB profiles exported to PostgreSQL and bulk-inserted by Marten; default 100000, 2000 with --quick");

    /// <summary>replicate: which workloads.</summary>
    internal static readonly Option<string[]?> ReplicateWorkloads = ExperimentOptions.Names(
        "--workloads", "VORON_REPLICATE_WORKLOADS", "workloads to run, separated by commas; default all", ReplicateExperiment.Workloads);

    /// <summary>replicate: the npm folder with s3rver and azurite.</summary>
    internal static readonly Option<string?> ReplicateObjectServers = ExperimentOptions.Text(
        "--object-servers", ReplicateExperiment.ObjectServersVariable,
        "a folder where `npm install --prefix PATH s3rver@3.7.1 azurite@3.35.0` was run: the s3rver and azurite destinations start from it; without it their rows say skipped", "PATH");

    /// <summary>replicate: a PostgreSQL server instead of a throwaway cluster.</summary>
    internal static readonly Option<string?> ReplicatePostgres = ExperimentOptions.Text(
        "--postgres", "VORON_REPLICATE_POSTGRES",
        "an Npgsql connection string of a PostgreSQL server whose user may create databases, to export into instead of a throwaway cluster started with initdb", "CONNECTION");

    /// <summary>documents: which parts.</summary>
    internal static readonly Option<string[]?> DocumentsParts = PartsOption(DocumentsSuite(null));

    /// <summary>ops: which parts.</summary>
    internal static readonly Option<string[]?> OpsParts = PartsOption(OpsSuite(null));

    internal static IReadOnlyList<ExperimentDefinition> All { get; } =
    [
        new(new CompareExperiment(), [ComparePaths, CompareCopies, Runs, CompareDuration, CompareLoops, Encrypt],
            result => new CompareExperiment(
                paths: result.GetValue(ComparePaths),
                copies: result.GetValue(CompareCopies),
                rounds: result.GetValue(Runs),
                duration: result.GetValue(CompareDuration) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                loops: result.GetValue(CompareLoops),
                encrypt: result.GetValue(Encrypt)),
            Writes: true),
        new(new KvExperiment(), [KvEntries, Runs, KvEngines, Encrypt],
            result => new KvExperiment(result.GetValue(KvEntries), result.GetValue(Runs), result.GetValue(KvEngines), result.GetValue(Encrypt)), Writes: true),
        new(new YcsbExperiment(), [Runs, Engines], result => new YcsbExperiment(runs: result.GetValue(Runs), engines: result.GetValue(Engines)), Writes: true),
        new(DocumentsSuite(null), [DocumentsCount, DocumentsSeconds, DocumentsEngines, DocumentsWorkloads, DocumentsCallers, Encrypt, DocumentsParts],
            result => DocumentsSuite(result).Only(result.GetValue(DocumentsParts))),
        Plain(new SqlExperiment()),
        new(new MergeExperiment(), [MergeCallers, MergeLoops],
            result => new MergeExperiment(callerCounts: result.GetValue(MergeCallers), loops: result.GetValue(MergeLoops)), Writes: true),
        new(new ChurnExperiment(), [ChurnEngines], result => new ChurnExperiment(engines: result.GetValue(ChurnEngines)), Writes: true),
        new(OpsSuite(null), [BackupSize, BackupSeconds, OpsRounds, BackupArchive, ToolsDocuments, OpsParts],
            result => OpsSuite(result).Only(result.GetValue(OpsParts)), Writes: true),
        new(new ReplicateExperiment(),
            [ReplicateRuns, ReplicateWriters, ReplicateCommits, ReplicateSize, ReplicateDocuments, ReplicateWorkloads, ReplicateObjectServers, ReplicatePostgres],
            result => new ReplicateExperiment(
                runs: result.GetValue(ReplicateRuns),
                writers: result.GetValue(ReplicateWriters),
                commits: result.GetValue(ReplicateCommits),
                restoreBytes: result.GetValue(ReplicateSize) is { } mib ? (long)mib << 20 : null,
                documents: result.GetValue(ReplicateDocuments),
                workloads: result.GetValue(ReplicateWorkloads),
                objectServers: result.GetValue(ReplicateObjectServers),
                postgres: result.GetValue(ReplicatePostgres)),
            Writes: true),
    ];

    /// <summary>
    /// Names the program no longer runs as suites, and where each went: an old command line gets
    /// this instead of a bare "unrecognized command" (CommandLine).
    /// </summary>
    internal static IReadOnlyDictionary<string, string> Moved { get; } = new Dictionary<string, string>
    {
        ["machine"] = "every run now measures the machine first (the preflight: fdatasync and fsync latency, sequential MiB/s, stated in every report); " +
                      "the full grid is a diagnostic: dotnet run -c Release --project Voron.Diagnostics -- machine",
        ["backup"] = "backup is part of the ops suite: run 'ops --parts backup' (or 'ops' for backup, tools and recovery)",
        ["tools"] = "tools is part of the ops suite: run 'ops --parts tools' (or 'ops' for backup, tools and recovery)",
        ["recovery"] = "recovery is part of the ops suite: run 'ops --parts recovery' (or 'ops' for backup, tools and recovery)",
        ["sqldocs"] = "sqldocs is a diagnostic of the voron_docs module now (compare runs the same three doors on its shop workload): " +
                      "dotnet run -c Release --project Voron.Diagnostics -- sqldocs",
        ["expiry"] = "expiry is part of the documents suite: run 'documents --parts expiry' (or 'documents' for both)",
        ["journal"] = "journal is a diagnostic of the engine now: dotnet run -c Release --project Voron.Diagnostics -- journal",
        ["sections"] = "sections is a diagnostic of the engine now: dotnet run -c Release --project Voron.Diagnostics -- sections",
        ["http"] = "http is a diagnostic now (it measures the sample app's HTTP stack, not a store): dotnet run -c Release --project Voron.Diagnostics -- http",
    };

    /// <summary>documents: the document stores side by side, then expiration's sweep beside writers.</summary>
    private static Suite DocumentsSuite(ParseResult? result) => new(
        "documents",
        "JSON documents, durable: Voron.Documents vs SQLite (JSON text, WAL FULL) and LiteDB: inserts from 1-256 callers, loads, queries, updates, bulk; then expiry: a sweep of expired documents beside 16 writers",
        [
            new(result is null ? new DocumentsExperiment() : new DocumentsExperiment(
                documents: result.GetValue(DocumentsCount),
                duration: result.GetValue(DocumentsSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                engines: result.GetValue(DocumentsEngines),
                workloads: result.GetValue(DocumentsWorkloads),
                insertCallers: result.GetValue(DocumentsCallers),
                encrypt: result.GetValue(Encrypt)), Writes: false),
            new(new ExpiryExperiment(), Writes: false),
        ]);

    /// <summary>ops: what running a store costs beside its workload: backup and restore, the voron tool, recovery on open.</summary>
    private static Suite OpsSuite(ParseResult? result) => new(
        "ops",
        "operations: hot backup vs cp, writers' p99 during backups, point-in-time restore; voron check/export/import; recovery (open time clean and after a crash)",
        [
            new(result is null ? new BackupExperiment() : new BackupExperiment(
                dataFileBytes: result.GetValue(BackupSize) is { } mib ? (long)mib << 20 : null,
                window: result.GetValue(BackupSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                rounds: result.GetValue(OpsRounds),
                archiveBytes: result.GetValue(BackupArchive) is { } archive ? (long)archive << 20 : null), Writes: true),
            new(result is null ? new ToolsExperiment() : new ToolsExperiment(documents: result.GetValue(ToolsDocuments), rounds: result.GetValue(OpsRounds)), Writes: false),
            new(new RecoveryExperiment(), Writes: false),
        ]);

    private static Option<string[]?> PartsOption(Suite suite) => ExperimentOptions.Names(
        "--parts", "VORON_PARTS", "parts of the suite to run, separated by commas; default all", suite.PartNames);

    /// <summary>The experiment named <paramref name="name"/> with its default settings, or null.</summary>
    internal static IExperiment? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase))?.Default;

    /// <summary>An experiment without options of its own.</summary>
    internal static ExperimentDefinition Plain(IExperiment experiment) => new(experiment, [], _ => experiment);
}
