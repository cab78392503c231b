using System.CommandLine;
using System.Text.Json;
using Voron.Documents;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron check &lt;store&gt; [--json]</c>: opens the store (recovery checks the headers and the
/// journal) and checks every page's checksum and every tree's invariants
/// (<see cref="StorageEnvironment.CheckIntegrity(IProgress{IntegrityProgress}, CancellationToken)"/>),
/// the documents against their indexes (<see cref="DocumentStore.CheckIntegrity"/>) and every
/// SQLite database (<c>PRAGMA integrity_check</c>, <see cref="CheckSqlite"/>). Each stage is
/// reported; a stage that finds damage does not stop the later ones, except a store that cannot be
/// opened. Exit 0 when nothing is wrong, 1 with the report when damage is found.
/// </summary>
internal static class CheckCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = new Argument<string>("store") { Description = "the store's directory" };
        var json = new Option<bool>("--json") { Description = "print the report as JSON" };
        var command = new Command("check", "check every page's checksum, every tree, the documents against their indexes and every SQLite database; exit 1 on damage")
        {
            store,
            json,
        };
        command.SetAction(async (result, cancellationToken) =>
            await RunAsync(console, result.GetValue(store)!, result.GetValue(json), cancellationToken).ConfigureAwait(false));
        return command;
    }

    private static async Task<int> RunAsync(ToolConsole console, string path, bool json, CancellationToken cancellationToken)
    {
        var directory = StoreAccess.RequireStore(path);
        var stages = new List<CheckStage>();
        StorageEnvironment? environment = null;
        try
        {
            environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
            stages.Add(new CheckStage("open", CheckStage.Ok, $"headers and journal read, transaction {InspectOutput.Count(environment.LastCommittedTransactionId)}"));
        }
        catch (Exception e) when (StoreAccess.IsDamage(e))
        {
            stages.Add(CheckStage.FromDamage("open", e));
        }

        if (environment != null)
        {
            using (environment)
            {
                stages.Add(CheckPages(console, environment, cancellationToken));
                await CheckDocumentsAndSqlAsync(environment, stages, cancellationToken).ConfigureAwait(false);
            }
        }

        var damaged = stages.Any(stage => stage.Status == CheckStage.Damaged);
        if (json)
        {
            InspectOutput.Json(console.Out, writer => WriteJson(writer, directory, stages, damaged));
        }
        else
        {
            WriteReport(console.Out, stages, damaged);
        }

        return damaged ? ExitCodes.Damage : ExitCodes.Ok;
    }

    private static CheckStage CheckPages(ToolConsole console, StorageEnvironment environment, CancellationToken cancellationToken)
    {
        const string Name = "pages and trees";
        try
        {
            var report = CheckProgress.Run(console, "checking pages and trees", progress => environment.CheckIntegrity(progress, cancellationToken));
            return new CheckStage(Name, CheckStage.Ok,
                $"{InspectOutput.Count(report.Pages, "page", "pages")}, {InspectOutput.Count(report.Trees, "tree", "trees")}, " +
                $"{InspectOutput.Count(report.Entries, "entry", "entries")}, {InspectOutput.Count(report.FreePages, "free page", "free pages")}");
        }
        catch (Exception e) when (StoreAccess.IsDamage(e) || e is InvalidOperationException)
        {
            return CheckStage.FromDamage(Name, e); // InvalidOperationException: a broken tree or free-space invariant ("Integrity: ...")
        }
    }

    private static async Task CheckDocumentsAndSqlAsync(StorageEnvironment environment, List<CheckStage> stages, CancellationToken cancellationToken)
    {
        const string Name = "documents";
        DocumentStore? documents = null;
        try
        {
            if (!StoreAccess.HasDocuments(environment))
            {
                stages.Add(new CheckStage(Name, CheckStage.Skipped, "the store holds no documents"));
            }
            else
            {
                documents = DocumentStore.Open(environment);
                var report = documents.CheckIntegrity();
                stages.Add(new CheckStage(Name, CheckStage.Ok,
                    $"{InspectOutput.Count(report.Documents, "document", "documents")} in {InspectOutput.Count(report.Collections, "collection", "collections")}, " +
                    $"{InspectOutput.Count(report.Indexes, "index", "indexes")} with {InspectOutput.Count(report.IndexEntries, "entry", "entries")}, each against its document"));
            }
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            // Whatever stops the documents from opening or checking in a store whose pages may be
            // damaged is a finding about this store, reported with the others.
            stages.Add(CheckStage.FromDamage(Name, e));
        }

        try
        {
            stages.AddRange(CheckSqlite.Run(environment, documents, cancellationToken));
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            stages.Add(CheckStage.FromDamage("sqlite", e));
        }
        finally
        {
            if (documents != null)
            {
                await documents.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static void WriteReport(TextWriter output, List<CheckStage> stages, bool damaged)
    {
        var width = stages.Max(stage => stage.Name.Length) + 2;
        foreach (var stage in stages)
        {
            var status = stage.Status == CheckStage.Damaged ? "DAMAGED" : stage.Status;
            output.WriteLine($"{(stage.Name + ":").PadRight(width)} {status}, {stage.Detail}");
            if (stage.File != null)
            {
                output.WriteLine($"{new string(' ', width)}   file:   {stage.File}");
            }

            if (stage.Offset is { } offset)
            {
                output.WriteLine($"{new string(' ', width)}   offset: {offset}");
            }
        }

        output.WriteLine(damaged ? "Damage found." : "No damage found.");
        if (damaged)
        {
            output.WriteLine(VoronTool.DamageAdvice);
        }
    }

    private static void WriteJson(Utf8JsonWriter writer, string directory, List<CheckStage> stages, bool damaged)
    {
        writer.WriteStartObject();
        writer.WriteString("store", directory);
        writer.WriteBoolean("damaged", damaged);
        writer.WriteStartArray("stages");
        foreach (var stage in stages)
        {
            writer.WriteStartObject();
            writer.WriteString("name", stage.Name);
            writer.WriteString("status", stage.Status);
            writer.WriteString("detail", stage.Detail);
            writer.WriteString("file", stage.File);
            if (stage.Offset is { } offset)
            {
                writer.WriteNumber("offset", offset);
            }
            else
            {
                writer.WriteNull("offset");
            }

            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteString("advice", damaged ? VoronTool.DamageAdvice : null);
        writer.WriteEndObject();
    }
}
