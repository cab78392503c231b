using System.CommandLine;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests;

/// <summary>
/// <c>dotnet run -c Release --project Voron.LoadTests -- [experiment] [options]</c>, parsed by
/// System.CommandLine: one command per experiment of <see cref="ExperimentCatalog.All"/> (with the
/// experiment's own options), the common options on every command, <c>list</c> to print the
/// experiments, <c>--help</c> anywhere. With no experiment it runs <see cref="ExperimentCatalog.Default"/>.
/// A usage error (unknown experiment or option, bad value) prints what was wrong, naming the
/// argument, then the help, and exits with <see cref="UsageError"/>.
/// </summary>
internal static class CommandLine
{
    /// <summary>The exit code of a command line that does not parse.</summary>
    internal const int UsageError = 2;

    internal static readonly Option<bool> Quick = new("--quick")
    {
        Description = "a short run (under a minute) with smaller counts",
        Recursive = true,
    };

    internal static readonly Option<string?> Directory = new("--dir")
    {
        Description = "where to put the data (default: a new temporary directory, deleted afterwards)",
        HelpName = "PATH",
        Recursive = true,
    };

    internal static readonly Option<string> Reports = new("--reports")
    {
        Description = "where to write <experiment>.json and <experiment>.md",
        HelpName = "PATH",
        DefaultValueFactory = _ => "reports",
        Recursive = true,
    };

    private static readonly RootCommand Root = Build();

    /// <summary>Parses <paramref name="args"/> without running anything.</summary>
    internal static ParseResult Parse(string[] args) => Root.Parse(args);

    internal static async Task<int> RunAsync(string[] args, TextWriter output)
    {
        var parsed = Root.Parse(args);
        var exit = await parsed.InvokeAsync(new InvocationConfiguration { Output = output, Error = output }).ConfigureAwait(false);
        return parsed.Errors.Count > 0 ? UsageError : exit;
    }

    private static RootCommand Build()
    {
        var root = new RootCommand("Voron load tests: each experiment measures one thing, prints progress and a summary, and saves reports/<experiment>.json, .md and .html (charts).");
        root.Options.Add(Quick);
        root.Options.Add(Directory);
        root.Options.Add(Reports);
        var defaultExperiment = ExperimentCatalog.All.Single(e => e.Name == ExperimentCatalog.Default);
        root.SetAction((result, _) => RunAsync(defaultExperiment, result, quick: true)); // the first command a newcomer runs: short

        foreach (var experiment in ExperimentCatalog.All)
        {
            var command = new Command(experiment.Name, experiment.Description + (experiment.Name == ExperimentCatalog.Default ? " (default)" : ""));
            foreach (var option in experiment.Options)
            {
                command.Options.Add(option);
            }

            if (experiment.Writes)
            {
                command.Options.Add(ExperimentCatalog.FlushDelay);
            }

            command.SetAction((result, _) => RunAsync(experiment, result));
            root.Subcommands.Add(command);
        }

        var list = new Command("list", "print the experiments");
        list.Aliases.Add("help");
        list.SetAction(result => PrintList(result.InvocationConfiguration.Output));
        root.Subcommands.Add(list);
        root.Subcommands.Add(SyscallsChildCommand());
        return root;
    }

    private static async Task<int> RunAsync(ExperimentDefinition definition, ParseResult result, bool quick = false)
    {
        var output = result.InvocationConfiguration.Output;
        quick |= result.GetValue(Quick);
        var experiment = definition.Create(result);
        var delay = definition.Writes ? result.GetValue(ExperimentCatalog.FlushDelay) : null;
        var disk = delay is > 0 ? new SimulatedDisk(TimeSpan.FromMilliseconds(delay.Value)) : SimulatedDisk.None;
        using var context = ExperimentContext.Create(output, quick, result.GetValue(Directory), result.GetValue(Reports)!, disk);
        var simulated = disk.IsSimulated ? $", SIMULATED disk: +{disk.FlushDelayMs} ms per flush" : "";
        output.WriteLine($"Experiment '{experiment.Name}'{(quick ? " (quick)" : "")}, data in {context.DataDirectory}{simulated}");
        var report = await experiment.RunAsync(context).ConfigureAwait(false);
        var saved = report.Save(context.ReportsDirectory);
        output.WriteLine();
        output.WriteLine(report.ToMarkdown());
        var csv = saved.Csv.Count == 0 ? "" : $", and {saved.Csv.Count} CSV file(s) in {Path.GetDirectoryName(saved.Csv[0])}";
        output.WriteLine($"Saved {saved.Json}, {saved.Markdown}{csv}.");
        output.WriteLine($"Saved {saved.Html}"); // last: the page to open

        return 0;
    }

    private static int PrintList(TextWriter output)
    {
        output.WriteLine("Experiments (dotnet run -c Release --project Voron.LoadTests -- <experiment> [--quick] [--dir PATH] [--reports PATH]; <experiment> --help for its options):");
        foreach (var experiment in ExperimentCatalog.All)
        {
            var marker = experiment.Name == ExperimentCatalog.Default ? " (default)" : "";
            output.WriteLine($"  {experiment.Name,-12} {experiment.Description}{marker}");
        }

        return 0;
    }

    /// <summary>Hidden: <c>syscalls-child &lt;mode&gt; &lt;dir&gt; &lt;commits&gt;</c>, the child the syscalls experiment runs under strace (Experiments/SyscallsChild.cs).</summary>
    private static Command SyscallsChildCommand()
    {
        var mode = new Argument<string>("mode") { Description = "the engine mode" };
        mode.AcceptOnlyFromAmong([.. SyscallsChild.Modes, .. SyscallsChild.SqlModes]);
        var directory = new Argument<string>("dir") { Description = "the store's directory" };
        var commits = new Argument<int>("commits") { Description = "measured commits after the warm-up" };
        var command = new Command(SyscallsChild.Command, "the child process of the syscalls experiment") { Hidden = true };
        command.Arguments.Add(mode);
        command.Arguments.Add(directory);
        command.Arguments.Add(commits);
        command.SetAction((result, _) => SyscallsChild.RunAsync(
            result.GetValue(mode)!, result.GetValue(directory)!, result.GetValue(commits), result.InvocationConfiguration.Output));
        return command;
    }
}
