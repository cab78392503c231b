using System.CommandLine;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// Every experiment the program knows, in the order <c>list</c> and <c>--help</c> print them: the
/// one place to register an experiment and the options of its own (the common options, --quick,
/// --dir and --reports, are CommandLine's). To add one: a line in <see cref="All"/>, and its options
/// as fields here.
/// </summary>
internal static class ExperimentCatalog
{
    internal const string Default = "machine";

    /// <summary>kv: N, the number of entries.</summary>
    internal static readonly Option<int?> KvEntries = ExperimentOptions.PositiveNumber(
        "--entries", "VORON_KV_N", "entries (N) of every kv workload; default 1,000,000, 50,000 with --quick");

    /// <summary>merge: the caller counts to run.</summary>
    internal static readonly Option<int[]?> MergeCallers = ExperimentOptions.List(
        "--callers", "VORON_MERGE_CALLERS", "caller counts to run, separated by commas; default 1,4,16,64,256",
        MergeExperiment.ParseCallerCounts);

    internal static IReadOnlyList<ExperimentDefinition> All { get; } =
    [
        Plain(new MachineExperiment()),
        new(new KvExperiment(), [KvEntries], result => new KvExperiment(result.GetValue(KvEntries))),
        new(new MergeExperiment(), [MergeCallers], result => new MergeExperiment(callerCounts: result.GetValue(MergeCallers))),
        Plain(new JournalExperiment()),
        Plain(new SectionsExperiment()),
        Plain(new CompressionExperiment()),
        Plain(new ChecksumsExperiment()),
        Plain(new DocumentsExperiment()),
        Plain(new Http.HttpExperiment()),
        Plain(new SqlExperiment()),
    ];

    /// <summary>The experiment named <paramref name="name"/> with its default settings, or null.</summary>
    internal static IExperiment? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase))?.Default;

    /// <summary>An experiment without options of its own.</summary>
    private static ExperimentDefinition Plain(IExperiment experiment) => new(experiment, [], _ => experiment);
}
