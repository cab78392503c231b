using Voron.LoadTests.Experiments;

namespace Voron.LoadTests;

/// <summary>
/// <c>dotnet run -c Release --project Voron.LoadTests -- [experiment] [--quick] [--dir PATH] [--reports PATH]</c>.
/// With no experiment it runs <see cref="ExperimentCatalog.Default"/>; <c>list</c> or <c>--help</c>
/// prints the experiments.
/// </summary>
internal static class CommandLine
{
    internal static async Task<int> RunAsync(string[] args, TextWriter output)
    {
        if (args.Length > 0 && args[0] == CrashChild.Command)
        {
            // Hidden: the child process of Voron.Tests' ProcessKillTests, not an experiment.
            return await CrashChild.RunAsync(args[1..], output).ConfigureAwait(false);
        }

        string? name = null;
        var quick = false;
        string? directory = null;
        var reports = "reports";
        for (var i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--quick":
                    quick = true;
                    break;
                case "--dir" when i + 1 < args.Length:
                    directory = args[++i];
                    break;
                case "--reports" when i + 1 < args.Length:
                    reports = args[++i];
                    break;
                case "-h" or "--help" or "help" or "list":
                    PrintHelp(output);
                    return 0;
                default:
                    if (args[i].StartsWith('-') || name != null)
                    {
                        output.WriteLine($"Unknown argument '{args[i]}'.");
                        PrintHelp(output);
                        return 2;
                    }

                    name = args[i];
                    break;
            }
        }

        var experiment = ExperimentCatalog.Find(name ?? ExperimentCatalog.Default);
        if (experiment == null)
        {
            output.WriteLine($"No experiment named '{name}'.");
            PrintHelp(output);
            return 2;
        }

        using var context = ExperimentContext.Create(output, quick, directory);
        output.WriteLine($"Experiment '{experiment.Name}'{(quick ? " (quick)" : "")}, data in {context.DataDirectory}");
        var report = await experiment.RunAsync(context).ConfigureAwait(false);
        var (json, markdown) = report.Save(reports);
        output.WriteLine();
        output.WriteLine(report.ToMarkdown());
        output.WriteLine($"Saved {json} and {markdown}.");
        return 0;
    }

    private static void PrintHelp(TextWriter output)
    {
        output.WriteLine("Usage: dotnet run -c Release --project Voron.LoadTests -- [experiment] [--quick] [--dir PATH] [--reports PATH]");
        output.WriteLine();
        output.WriteLine("  --quick         a short run (under a minute) with smaller counts");
        output.WriteLine("  --dir PATH      where to put the data (default: a new temporary directory, deleted afterwards)");
        output.WriteLine("  --reports PATH  where to write <experiment>.json and <experiment>.md (default: reports)");
        output.WriteLine();
        output.WriteLine("Experiments:");
        foreach (var experiment in ExperimentCatalog.All)
        {
            var marker = experiment.Name == ExperimentCatalog.Default ? " (default)" : "";
            output.WriteLine($"  {experiment.Name,-10} {experiment.Description}{marker}");
        }
    }
}
