using System.CommandLine;
using Voron.LoadTests.Experiments;

namespace Voron.LoadTests;

/// <summary>
/// <c>dotnet run -c Release --project Voron.LoadTests -- [suite] [options]</c>, parsed by
/// System.CommandLine: one command per suite of <see cref="ExperimentCatalog.All"/> (with the
/// suite's own options), the common options on every command, <c>list</c> to print the suites,
/// <c>--help</c> anywhere. With no suite it runs <see cref="ExperimentCatalog.Default"/>. Every run
/// first measures the machine (<see cref="Preflight"/>), which every report states. A usage error
/// (unknown suite or option, bad value) prints what was wrong, naming the argument, then the help,
/// and exits with <see cref="UsageError"/>; a name that moved (<see cref="ExperimentCatalog.Moved"/>)
/// says where it went. <see cref="Build"/> makes the same command line over another list of
/// experiments (Voron.Diagnostics' program).
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

    private static readonly RootCommand Root = Build(
        "Voron load tests: each experiment measures one thing, prints progress and a summary, and saves reports/<experiment>.json, .md and .html (charts).",
        "Voron.LoadTests", ExperimentCatalog.All, ExperimentCatalog.Default, ExperimentCatalog.Moved);

    /// <summary>Parses <paramref name="args"/> without running anything.</summary>
    internal static ParseResult Parse(string[] args) => Root.Parse(args);

    internal static Task<int> RunAsync(string[] args, TextWriter output) => RunAsync(Root, args, output);

    /// <summary>Runs the command line <paramref name="root"/> (made by <see cref="Build"/>) over <paramref name="args"/>.</summary>
    internal static async Task<int> RunAsync(RootCommand root, string[] args, TextWriter output)
    {
        var parsed = root.Parse(args);
        var exit = await parsed.InvokeAsync(new InvocationConfiguration { Output = output, Error = output }).ConfigureAwait(false);
        return parsed.Errors.Count > 0 ? UsageError : exit;
    }

    /// <summary>
    /// A command line over <paramref name="experiments"/>: a command each, the common options,
    /// <c>list</c>. With no experiment named it runs <paramref name="defaultExperiment"/> in quick
    /// mode, or prints the list when there is none. <paramref name="project"/> is the project
    /// <c>list</c> tells the user to run.
    /// </summary>
    internal static RootCommand Build(
        string description, string project, IReadOnlyList<ExperimentDefinition> experiments, string? defaultExperiment, IReadOnlyDictionary<string, string>? moved = null)
    {
        var root = new RootCommand(description);
        root.Options.Add(Quick);
        root.Options.Add(Directory);
        root.Options.Add(Reports);
        if (defaultExperiment != null)
        {
            var definition = experiments.Single(e => e.Name == defaultExperiment);
            root.SetAction((result, _) => RunAsync(definition, result, quick: true)); // the first command a newcomer runs: short
        }
        else
        {
            root.SetAction(result => PrintList(result.InvocationConfiguration.Output, project, experiments, defaultExperiment));
        }

        foreach (var experiment in experiments)
        {
            var command = new Command(experiment.Name, experiment.Description + (experiment.Name == defaultExperiment ? " (default)" : ""));
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

        foreach (var (name, whereItWent) in moved ?? new Dictionary<string, string>())
        {
            var command = new Command(name, whereItWent) { Hidden = true, TreatUnmatchedTokensAsErrors = false };
            command.SetAction(result =>
            {
                result.InvocationConfiguration.Output.WriteLine($"'{name}' is not a suite any more: {whereItWent}.");
                return UsageError;
            });
            root.Subcommands.Add(command);
        }

        var list = new Command("list", "print the experiments");
        list.Aliases.Add("help");
        list.SetAction(result => PrintList(result.InvocationConfiguration.Output, project, experiments, defaultExperiment));
        root.Subcommands.Add(list);
        return root;
    }

    private static async Task<int> RunAsync(ExperimentDefinition definition, ParseResult result, bool quick = false)
    {
        var output = result.InvocationConfiguration.Output;
        quick |= result.GetValue(Quick);
        var experiment = definition.Create(result);
        var delay = definition.Writes ? result.GetValue(ExperimentCatalog.FlushDelay) : null;
        var disk = delay is > 0 ? new SimulatedDisk(TimeSpan.FromMilliseconds(delay.Value)) : SimulatedDisk.None;
        var parts = experiment is Suite suite ? suite.Parts : [new Suite.Part(experiment, definition.Writes)];
        Preflight? preflight = null;
        foreach (var part in parts)
        {
            var partDisk = part.Writes ? disk : SimulatedDisk.None;
            using var context = ExperimentContext.Create(output, quick, result.GetValue(Directory), result.GetValue(Reports)!, partDisk, preflight);
            var simulated = partDisk.IsSimulated ? $", SIMULATED disk: +{partDisk.FlushDelayMs} ms per flush" : "";
            output.WriteLine($"Experiment '{part.Experiment.Name}'{(quick ? " (quick)" : "")}, data in {context.DataDirectory}{simulated}");
            preflight = context.Preflight; // measured once, before the first part: every report states it
            var report = await part.Experiment.RunAsync(context).ConfigureAwait(false);
            var saved = report.Save(context.ReportsDirectory);
            output.WriteLine();
            output.WriteLine(report.ToMarkdown());
            var csv = saved.Csv.Count == 0 ? "" : $", and {saved.Csv.Count} CSV file(s) in {Path.GetDirectoryName(saved.Csv[0])}";
            output.WriteLine($"Saved {saved.Json}, {saved.Markdown}{csv}.");
            output.WriteLine($"Saved {saved.Html}"); // last: the page to open
        }

        return 0;
    }

    private static int PrintList(TextWriter output, string project, IReadOnlyList<ExperimentDefinition> experiments, string? defaultExperiment)
    {
        output.WriteLine($"Experiments (dotnet run -c Release --project {project} -- <experiment> [--quick] [--dir PATH] [--reports PATH]; <experiment> --help for its options):");
        foreach (var experiment in experiments)
        {
            var marker = experiment.Name == defaultExperiment ? " (default)" : "";
            output.WriteLine($"  {experiment.Name,-12} {experiment.Description}{marker}");
        }

        return 0;
    }
}
