using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ToolsExperiment
{
    /// <summary>
    /// The store's documents exported once to a file (not timed), then per round, the order
    /// alternating: <see cref="DocumentStore.BulkInsertAsync{T}(IEnumerable{T}, System.Text.Json.Serialization.Metadata.JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>
    /// of the profiles as objects into a new store, and <c>voron import</c> of the file into a new
    /// store. Both stores get the same index first (not timed). The bulk insert is timed from its
    /// call to its return; the import is the whole command (it opens and closes the store).
    /// </summary>
    private static async Task MeasureImportAsync(ExperimentContext context, Report report, string store, List<Profile> profiles, int rounds)
    {
        var file = Path.Combine(context.DataDirectory, "tools-export.jsonl");
        await using (var output = File.Create(file))
        {
            await RunToolAsync(output, "export", store).ConfigureAwait(false);
        }

        context.Progress($"exported {profiles.Count:N0} profiles to {new FileInfo(file).Length / 1e6:N0} MB of JSON Lines (not timed)");
        string[] methods = [BulkApi, Import];
        var runs = new List<ToolRun>();
        for (var round = 1; round <= rounds; round++)
        {
            foreach (var method in round % 2 == 1 ? methods : methods.Reverse())
            {
                var target = Path.Combine(context.DataDirectory, $"tools-import-{round}-{runs.Count}");
                double seconds;
                if (method == BulkApi)
                {
                    seconds = await BulkInsertAsync(target, profiles).ConfigureAwait(false);
                }
                else
                {
                    await PrepareImportTargetAsync(target).ConfigureAwait(false);
                    var watch = Stopwatch.StartNew();
                    await RunToolAsync(null, "import", target, file).ConfigureAwait(false);
                    seconds = watch.Elapsed.TotalSeconds;
                }

                await VerifyCountAsync(target, profiles.Count).ConfigureAwait(false);
                Directory.Delete(target, recursive: true);
                runs.Add(new ToolRun(method, round, seconds, 0, profiles.Count));
                context.Progress($"import round {round} of {rounds}, {method,-15}: {seconds:F2} s, {profiles.Count / seconds:N0} documents/s");
                report.AddRow(("table", RunsTable), ("method", method), ("round", round), ("seconds", seconds), ("documentsPerSecond", profiles.Count / seconds));
            }
        }

        File.Delete(file);
        var apiRate = profiles.Count / Median.Of(runs.Where(r => r.Method == BulkApi).Select(r => r.Seconds));
        foreach (var method in methods)
        {
            var mine = runs.Where(r => r.Method == method).ToList();
            var rate = profiles.Count / Median.Of(mine.Select(r => r.Seconds));
            report.AddRow(
                ("table", ImportTable),
                ("method", method),
                ("runs", mine.Count),
                ("medianSeconds", Median.Of(mine.Select(r => r.Seconds))),
                ("documentsPerSecond", rate),
                ("vsApi", rate / apiRate),
                ("target", method == Import ? $">= {ImportTarget}x {BulkApi}" : null),
                ("met", method == Import ? rate / apiRate >= ImportTarget : null));
        }

        report.AddNote($"import: medians of {rounds} rounds, the order alternating, each into a new store that first gets the index on $.city (not timed). " +
                       $"{BulkApi}: the profiles as objects (made before the clock starts), serialized by System.Text.Json's source generator, from the call to its return. " +
                       $"{Import}: `voron import <new store> <file>` of the same documents exported by `voron export`, the whole command (open, parse, bulk path, close). " +
                       $"Both commit durably in batches through the merger. Target: import at least {ImportTarget}x the API's rate.");
    }

    /// <summary>An empty store with the profiles' index, closed: what a user prepares before importing.</summary>
    private static async Task PrepareImportTargetAsync(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var documents = DocumentStore.Open(environment);
        await documents.EnsureIndexAsync(IndexDefinition.For(ProfileJson.Default.Profile, IndexName, p => p.City)).ConfigureAwait(false);
    }

    private static async Task VerifyCountAsync(string directory, int expected)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var documents = DocumentStore.Open(environment);
        var count = documents.GetStatistics().Collections.Sum(c => c.Documents);
        if (count != expected)
        {
            throw new InvalidOperationException($"the store holds {count:N0} documents after the import, not {expected:N0}");
        }
    }
}
