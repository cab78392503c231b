using System.CommandLine;
using Voron.Diagnostics.Engines.SqlDocs;
using Voron.Diagnostics.Experiments;
using Voron.LoadTests;
using Voron.LoadTests.Experiments;

namespace Voron.Diagnostics;

/// <summary>
/// <c>dotnet run -c Release --project Voron.Diagnostics -- &lt;diagnostic&gt; [options]</c>: the
/// one-off diagnostics of the engine, each of which answered one question (their findings are in
/// docs/results/). The command line is the load-test program's (<see cref="CommandLine.Build"/>:
/// the same common options, reports and --flush-delay for the ones that write); with no diagnostic
/// named it prints the list. To add one: a line in <see cref="All"/>.
/// </summary>
internal static class DiagnosticsCatalog
{
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

    internal static IReadOnlyList<ExperimentDefinition> All { get; } =
    [
        ExperimentCatalog.Plain(new MachineExperiment()),
        new(new JournalExperiment(), [], _ => new JournalExperiment(), Writes: true),
        new(new SectionsExperiment(), [], _ => new SectionsExperiment(), Writes: true),
        ExperimentCatalog.Plain(new Experiments.Http.HttpExperiment()),
        new(new SqlDocsExperiment(), [SqlDocsDocuments, SqlDocsSeconds, SqlDocsRounds, SqlDocsEngineNames],
            result => new SqlDocsExperiment(
                documents: result.GetValue(SqlDocsDocuments),
                duration: result.GetValue(SqlDocsSeconds) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
                rounds: result.GetValue(SqlDocsRounds),
                engines: result.GetValue(SqlDocsEngineNames))),
        new(new AnatomyExperiment(), [], _ => new AnatomyExperiment(), Writes: true),
        new(new StallsExperiment(), [], _ => new StallsExperiment(), Writes: true),
        ExperimentCatalog.Plain(new SyscallsExperiment()),
        ExperimentCatalog.Plain(new FileSizeExperiment()),
        ExperimentCatalog.Plain(new CompressionExperiment()),
        ExperimentCatalog.Plain(new ChecksumsExperiment()),
    ];

    private static readonly RootCommand Root = Build();

    /// <summary>The diagnostic named <paramref name="name"/> with its default settings, or null.</summary>
    internal static IExperiment? Find(string name) =>
        All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase))?.Default;

    /// <summary>Parses <paramref name="args"/> without running anything.</summary>
    internal static ParseResult Parse(string[] args) => Root.Parse(args);

    internal static Task<int> RunAsync(string[] args, TextWriter output) => CommandLine.RunAsync(Root, args, output);

    private static RootCommand Build()
    {
        var root = CommandLine.Build(
            "Voron diagnostics: one-off measurements of the engine's insides; each prints progress and a summary, and saves reports/<diagnostic>.json, .md and .html.",
            "Voron.Diagnostics", All, defaultExperiment: null);
        root.Subcommands.Add(SyscallsChildCommand());
        return root;
    }

    /// <summary>Hidden: <c>syscalls-child &lt;mode&gt; &lt;dir&gt; &lt;commits&gt;</c>, the child the syscalls diagnostic runs under strace (Experiments/SyscallsChild.cs).</summary>
    private static Command SyscallsChildCommand()
    {
        var mode = new Argument<string>("mode") { Description = "the engine mode" };
        mode.AcceptOnlyFromAmong([.. SyscallsChild.Modes, .. SyscallsChild.SqlModes]);
        var directory = new Argument<string>("dir") { Description = "the store's directory" };
        var commits = new Argument<int>("commits") { Description = "measured commits after the warm-up" };
        var command = new Command(SyscallsChild.Command, "the child process of the syscalls diagnostic") { Hidden = true };
        command.Arguments.Add(mode);
        command.Arguments.Add(directory);
        command.Arguments.Add(commits);
        command.SetAction((result, _) => SyscallsChild.RunAsync(
            result.GetValue(mode)!, result.GetValue(directory)!, result.GetValue(commits), result.InvocationConfiguration.Output));
        return command;
    }
}
