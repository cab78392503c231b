using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Voron.Documents;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron check &lt;store&gt; [--json]</c>: opens the store (recovery checks the headers and the
/// journal) and checks every page's checksum and every tree's invariants
/// (<see cref="StorageEnvironment.CheckIntegrity(IProgress{IntegrityProgress}, CancellationToken)"/>),
/// the documents against their indexes (<see cref="DocumentStore.CheckIntegrity"/>) and every
/// SQLite database (<c>PRAGMA integrity_check</c>, <see cref="CheckSqlite"/>), after a read-only
/// look at the files (<see cref="StorageEnvironment.Inspect"/>). Each stage is reported; a stage
/// that finds damage does not stop the later ones, except a store that cannot be opened. Exit 0
/// when nothing is wrong, 1 with the report when damage is found, 3 when a stage could not run for
/// a reason that says nothing about the store (an incomplete check).
/// </summary>
internal static class CheckCommand
{
    public static Command Create(ToolConsole console)
    {
        var store = InspectOutput.StoreArgument();
        var json = InspectOutput.JsonOption("print the report as JSON");
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
        var watch = Stopwatch.StartNew();
        void Timed(CheckStage stage)
        {
            stages.Add(stage with { Seconds = watch.Elapsed.TotalSeconds });
            watch.Restart();
        }

        Timed(InspectFiles(directory));
        StorageEnvironment? environment = null;
        try
        {
            environment = StorageEnvironment.Open(StoreAccess.Options(directory));
            Timed(new CheckStage("open", CheckStage.Ok, $"headers and journal read, transaction {InspectOutput.Count(environment.LastCommittedTransactionId)}"));
        }
        catch (Exception e) when (StoreAccess.IsDamage(e))
        {
            Timed(CheckStage.FromDamage("open", e));
        }

        if (environment != null)
        {
            using (environment)
            {
                Timed(await CheckPagesAsync(console, environment, cancellationToken).ConfigureAwait(false));
                await CheckDocumentsAndSqlAsync(environment, Timed, cancellationToken).ConfigureAwait(false);
            }
        }

        var damaged = stages.Any(stage => stage.Status == CheckStage.Damaged);
        var failed = stages.Any(stage => stage.Status == CheckStage.Failed);
        if (json)
        {
            InspectOutput.Json(console.Out, writer => WriteJson(writer, directory, stages, damaged, failed));
        }
        else
        {
            WriteReport(console.Out, stages, damaged, failed);
        }

        return damaged ? ExitCodes.Damage : failed ? ExitCodes.Failed : ExitCodes.Ok;
    }

    private static async Task<CheckStage> CheckPagesAsync(ToolConsole console, StorageEnvironment environment, CancellationToken cancellationToken)
    {
        const string Name = "pages and trees";
        try
        {
            var report = await ToolProgress.RunAsync(console, progress => Task.FromResult(environment.CheckIntegrity(
                new Forwarder<IntegrityProgress>(p => progress.Report(new ProgressStep("check pages and trees", p.PagesChecked, p.TotalPages, "pages"))),
                cancellationToken))).ConfigureAwait(false);
            return new CheckStage(Name, CheckStage.Ok,
                $"{InspectOutput.Count(report.Pages, "page", "pages")}, {InspectOutput.Count(report.Trees, "tree", "trees")}, " +
                $"{InspectOutput.Count(report.Entries, "entry", "entries")}, {InspectOutput.Count(report.FreePages, "free page", "free pages")}");
        }
        catch (Exception e) when (StoreAccess.IsViolation(e))
        {
            return CheckStage.FromDamage(Name, e); // InvalidOperationException: a broken tree or free-space invariant ("Integrity: ...", "BT5: ...")
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            return CheckStage.FromFailure(Name, e);
        }
    }

    /// <summary>
    /// The files as they are before the open recovers anything (<see cref="StorageEnvironment.Inspect"/>,
    /// read-only): what <c>voron info</c> lists as problems shows here as a warning, since an open
    /// handles some of them by design (a torn last record a crash left, one torn header copy); the
    /// stages after the open say whether anything is damage.
    /// </summary>
    private static CheckStage InspectFiles(string directory)
    {
        const string Name = "files";
        try
        {
            var info = StorageEnvironment.Inspect(directory);
            var summary = $"{InspectOutput.Count(info.Files.Count, "file", "files")}, transaction {InspectOutput.Count(info.LastTransactionId)}, " +
                          $"{InspectOutput.Count(info.JournalTransactions, "transaction", "transactions")} in the journal past the data file";
            return info.Problems.Count == 0
                ? new CheckStage(Name, CheckStage.Ok, summary)
                : new CheckStage(Name, CheckStage.Warning, $"{summary}; before the open: {string.Join(" ", info.Problems)}");
        }
        catch (Exception e) when (StoreAccess.IsDamage(e))
        {
            return CheckStage.FromDamage(Name, e);
        }
    }

    private static async Task CheckDocumentsAndSqlAsync(StorageEnvironment environment, Action<CheckStage> add, CancellationToken cancellationToken)
    {
        const string Name = "documents";
        DocumentStore? documents = null;
        var hasDocuments = false;
        try
        {
            hasDocuments = StoreAccess.HasDocuments(environment);
            if (!hasDocuments)
            {
                add(new CheckStage(Name, CheckStage.Skipped, "the store holds no documents"));
            }
            else
            {
                documents = DocumentStore.Open(environment);
                var report = documents.CheckIntegrity();
                add(new CheckStage(Name, CheckStage.Ok,
                    $"{InspectOutput.Count(report.Documents, "document", "documents")} in {InspectOutput.Count(report.Collections, "collection", "collections")}, " +
                    $"{InspectOutput.Count(report.Indexes, "index", "indexes")} with {InspectOutput.Count(report.IndexEntries, "entry", "entries")}, each against its document"));
            }
        }
        catch (Exception e) when (StoreAccess.IsViolation(e))
        {
            add(CheckStage.FromDamage(Name, e)); // a record that fails its checks, or a broken L1..L3 rule ("Integrity: ...")
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            add(CheckStage.FromFailure(Name, e));
        }

        try
        {
            CheckSqlite.Run(environment, documents, documentsFailed: hasDocuments && documents == null, add, cancellationToken);
        }
        catch (Exception e) when (StoreAccess.IsDamage(e))
        {
            add(CheckStage.FromDamage("sqlite", e));
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            add(CheckStage.FromFailure("sqlite", e));
        }
        finally
        {
            if (documents != null)
            {
                await documents.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static void WriteReport(TextWriter output, List<CheckStage> stages, bool damaged, bool failed)
    {
        var width = stages.Max(stage => stage.Name.Length) + 2;
        foreach (var stage in stages)
        {
            var status = stage.Status == CheckStage.Damaged ? "DAMAGED" : stage.Status;
            var seconds = stage.Seconds is { } s ? $" ({s.ToString("F2", CultureInfo.InvariantCulture)} s)" : "";
            output.WriteLine($"{(stage.Name + ":").PadRight(width)} {status}, {stage.Detail}{seconds}");
            if (stage.File != null)
            {
                output.WriteLine($"{new string(' ', width)}   file:   {stage.File}");
            }

            if (stage.Offset is { } offset)
            {
                output.WriteLine($"{new string(' ', width)}   offset: {offset}");
            }
        }

        output.WriteLine(damaged ? "Damage found."
            : failed ? "No damage found, but a stage could not run (above): the check is incomplete."
            : "No damage found.");
        if (damaged)
        {
            output.WriteLine(VoronTool.DamageAdvice);
        }
    }

    private static void WriteJson(Utf8JsonWriter writer, string directory, List<CheckStage> stages, bool damaged, bool failed)
    {
        writer.WriteStartObject();
        writer.WriteString("store", directory);
        writer.WriteBoolean("damaged", damaged);
        writer.WriteBoolean("complete", !failed);
        InspectOutput.ObjectArray(writer, "stages", stages, stage =>
        {
            writer.WriteString("name", stage.Name);
            writer.WriteString("status", stage.Status);
            writer.WriteString("detail", stage.Detail);
            if (stage.Seconds is { } seconds)
            {
                writer.WriteNumber("seconds", Math.Round(seconds, 3));
            }

            writer.WriteString("file", stage.File);
            if (stage.Offset is { } offset)
            {
                writer.WriteNumber("offset", offset);
            }
            else
            {
                writer.WriteNull("offset");
            }
        });
        writer.WriteString("advice", damaged ? VoronTool.DamageAdvice : null);
        writer.WriteEndObject();
    }
}
