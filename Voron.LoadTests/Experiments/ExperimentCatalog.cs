using System.CommandLine;
using Voron.LoadTests.Engines;
using Voron.LoadTests.Engines.Orders;
using Voron.LoadTests.Engines.SqlDocs;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Every experiment the program knows, in the order <c>list</c> and <c>--help</c> print them: the
/// one place to register an experiment and the options of its own (the common options, --quick,
/// --dir and --reports, are CommandLine's; --flush-delay is added to every experiment registered
/// as writing). To add one: a line in <see cref="All"/>, and its options as fields here. These are
/// the suites a user runs to choose a store; one-off diagnostics of the engine (a journal's
/// anatomy, stall traces, system calls, file size, compressors, checksums) are Voron.Diagnostics'
/// program, which reuses this program's pieces.
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

    /// <summary>churn: which engines, its compacting variant (voron-compact) among them.</summary>
    internal static readonly Option<string[]?> ChurnEngines = ExperimentOptions.Names(
        "--engines", "VORON_ENGINES", "engines to run, separated by commas; default all", KvEngineCatalog.WithCompaction.Select(k => k.Name).ToArray());

    /// <summary>backup: the store's data file size.</summary>
    internal static readonly Option<int?> BackupSize = ExperimentOptions.PositiveNumber(
        "--size", "VORON_BACKUP_MIB", "MiB of data file the store is built to before it is copied and backed up; default 1024, 64 with --quick");

    /// <summary>backup: seconds of each writers' window.</summary>
    internal static readonly Option<int?> BackupSeconds = ExperimentOptions.PositiveNumber(
        "--seconds", "VORON_BACKUP_SECONDS", "seconds of each window of the writers' load, with and without backups; default 20, 5 with --quick");

    /// <summary>backup: rounds of each comparison.</summary>
    internal static readonly Option<int?> BackupRounds = ExperimentOptions.PositiveNumber(
        "--rounds", "VORON_BACKUP_ROUNDS", "rounds of each comparison (cp against backups; writers with and without backups), the order alternating; default 3");

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

    /// <summary>sqldocs: profiles (and purchases) per engine.</summary>
    internal static readonly Option<int?> SqlDocsDocuments = ExperimentOptions.PositiveNumber(
        "--documents", "VORON_SQLDOCS_N", "profiles (and purchase rows) each engine holds; default 50,000, 5,000 with --quick");

    /// <summary>sqldocs: seconds per engine per configuration.</summary>
    internal static readonly Option<int?> SqlDocsSeconds = ExperimentOptions.PositiveNumber(
        "--seconds", "VORON_SQLDOCS_SECONDS", "seconds each engine runs each workload, split over the rounds; default 3 (0.3 with --quick)");

    /// <summary>sqldocs: interleaved rounds per configuration.</summary>
    internal static readonly Option<int?> SqlDocsRounds = ExperimentOptions.PositiveNumber(
        "--rounds", "VORON_SQLDOCS_ROUNDS", "interleaved rounds of each workload, the engines' order rotated each round; default 3, 1 with --quick");

    /// <summary>sqldocs: which engines.</summary>
    internal static readonly Option<string[]?> SqlDocsEngineNames = ExperimentOptions.Names(
        "--engines", "VORON_SQLDOCS_ENGINES", "engines to run, separated by commas; default all", SqlDocsEngines.All);

    /// <summary>compare: which paths.</summary>
    internal static readonly Option<string[]?> ComparePaths = ExperimentOptions.Names(
        "--paths", "VORON_COMPARE_PATHS", "paths to run, separated by commas; default all", OrderPaths.All);

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

    /// <summary>tools: rounds of each comparison.</summary>
    internal static readonly Option<int?> ToolsRounds = ExperimentOptions.PositiveNumber(
        "--rounds", "VORON_TOOLS_ROUNDS", "rounds of each comparison (check against cat, export, import against the API), interleaved; default 3");

    /// <summary>documents: documents bulk-inserted and then read, queried and updated.</summary>
    internal static readonly Option<int?> DocumentsCount = ExperimentOptions.PositiveNumber(
        "--documents", "VORON_DOCS_N", "documents bulk-inserted (then loaded, queried, updated); default 1000000, 20000 with --quick");

    /// <summary>documents: seconds of each timed run.</summary>
    internal static readonly Option<double?> DocumentsSeconds = ExperimentOptions.Seconds(
        "--seconds", "VORON_DOCS_SECONDS", "seconds each engine runs each timed workload; default 5 (0.3 with --quick)", 600);

    /// <summary>documents: which engines.</summary>
    internal static readonly Option<string[]?> DocumentsEngines = ExperimentOptions.Names(
        "--engines", "VORON_DOCS_ENGINES", "engines to run, separated by commas; default all", Documents.DocumentEngineNames.All);

    /// <summary>documents: which workloads (the bulk insert always loads the data; it is reported only when named).</summary>
    internal static readonly Option<string[]?> DocumentsWorkloads = ExperimentOptions.Names(
        "--workloads", "VORON_DOCS_WORKLOADS", "workloads to report, separated by commas (the bulk insert always runs, to load the data); default all", Documents.DocumentWorkloads.All);

    /// <summary>documents: the insert workload's caller counts.</summary>
    internal static readonly Option<int[]?> DocumentsCallers = ExperimentOptions.List(
        "--callers", "VORON_DOCS_CALLERS", "caller counts of the insert workload, separated by commas; default 1,16,64,256",
        (text, source) => MergeExperiment.ParseCallerCounts(text, source));

    internal static IReadOnlyList<ExperimentDefinition> All { get; } =
    [
        new(new CompareExperiment(), [ComparePaths, CompareCopies, Runs, CompareDuration, CompareLoops],
            result => new CompareExperiment(
                paths: result.GetValue(ComparePaths),
                copies: result.GetValue(CompareCopies),
                rounds: result.GetValue(Runs),
                duration: result.GetValue(CompareDuration) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                loops: result.GetValue(CompareLoops)),
            Writes: true),
        Plain(new MachineExperiment()),
        new(new KvExperiment(), [KvEntries, Runs, Engines],
            result => new KvExperiment(result.GetValue(KvEntries), result.GetValue(Runs), result.GetValue(Engines)), Writes: true),
        new(new MergeExperiment(), [MergeCallers, MergeLoops],
            result => new MergeExperiment(callerCounts: result.GetValue(MergeCallers), loops: result.GetValue(MergeLoops)), Writes: true),
        new(new YcsbExperiment(), [Runs, Engines], result => new YcsbExperiment(runs: result.GetValue(Runs), engines: result.GetValue(Engines)), Writes: true),
        new(new ChurnExperiment(), [ChurnEngines], result => new ChurnExperiment(engines: result.GetValue(ChurnEngines)), Writes: true),
        new(new BackupExperiment(), [BackupSize, BackupSeconds, BackupRounds, BackupArchive],
            result => new BackupExperiment(
                dataFileBytes: result.GetValue(BackupSize) is { } mib ? (long)mib << 20 : null,
                window: result.GetValue(BackupSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                rounds: result.GetValue(BackupRounds),
                archiveBytes: result.GetValue(BackupArchive) is { } archive ? (long)archive << 20 : null),
            Writes: true),
        new(new ToolsExperiment(), [ToolsDocuments, ToolsRounds],
            result => new ToolsExperiment(documents: result.GetValue(ToolsDocuments), rounds: result.GetValue(ToolsRounds))),
        new(new JournalExperiment(), [], _ => new JournalExperiment(), Writes: true),
        new(new SectionsExperiment(), [], _ => new SectionsExperiment(), Writes: true),
        Plain(new RecoveryExperiment()),
        new(new DocumentsExperiment(), [DocumentsCount, DocumentsSeconds, DocumentsEngines, DocumentsWorkloads, DocumentsCallers],
            result => new DocumentsExperiment(
                documents: result.GetValue(DocumentsCount),
                duration: result.GetValue(DocumentsSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                engines: result.GetValue(DocumentsEngines),
                workloads: result.GetValue(DocumentsWorkloads),
                insertCallers: result.GetValue(DocumentsCallers))),
        Plain(new Http.HttpExperiment()),
        Plain(new SqlExperiment()),
        new(new SqlDocsExperiment(), [SqlDocsDocuments, SqlDocsSeconds, SqlDocsRounds, SqlDocsEngineNames],
            result => new SqlDocsExperiment(
                documents: result.GetValue(SqlDocsDocuments),
                duration: result.GetValue(SqlDocsSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                rounds: result.GetValue(SqlDocsRounds),
                engines: result.GetValue(SqlDocsEngineNames))),
        Plain(new ExpiryExperiment()),
    ];

    /// <summary>The experiment named <paramref name="name"/> with its default settings, or null.</summary>
    internal static IExperiment? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase))?.Default;

    /// <summary>An experiment without options of its own.</summary>
    internal static ExperimentDefinition Plain(IExperiment experiment) => new(experiment, [], _ => experiment);
}
