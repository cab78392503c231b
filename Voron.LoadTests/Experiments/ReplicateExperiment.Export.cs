using AutoCreate = JasperFx.AutoCreate;
using Marten;
using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Experiments.Replicate;
using Voron.PostgreSql;
using MartenStore = Marten.DocumentStore;
using VoronDocuments = Voron.Documents.DocumentStore;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ReplicateExperiment
{
    internal const string ExportSummaryTable = "export";
    internal const string ExportRunsTable = "export runs";
    internal const string VoronExport = "PostgreSqlExport.ExportAsync";
    internal const string MartenBulkInsert = "Marten BulkInsertDocumentsAsync";

    /// <summary>Marten's table for the document type Profile (its alias: the type's name in lower case).</summary>
    private const string MartenTable = "mt_doc_profile";

    /// <summary>
    /// Export to PostgreSQL against Marten: a Voron document store of <c>--documents</c> profiles
    /// (bulk-inserted, untimed) exported with <see cref="PostgreSqlExport.ExportAsync"/>, and the
    /// same profiles as objects (made before the clock starts) bulk-inserted by Marten, each run
    /// into a new database of the same PostgreSQL server, in <paramref name="runs"/> runs whose
    /// order reverses every other run. Each result's rows are counted afterwards (untimed).
    /// </summary>
    private async Task MeasureExportAsync(ExperimentContext context, Report report, int runs)
    {
        var documents = _documents ?? (context.Quick ? 2_000 : 100_000);
        report.AddFact("exportDocuments", documents);
        var (cluster, whyNot) = _postgres is { Length: > 0 } named ? (PostgresCluster.Connect(named), null) : PostgresCluster.Start(context.DataDirectory);
        if (cluster is null)
        {
            var skipped = $"skipped: no PostgreSQL: {whyNot}";
            context.Progress($"export: {skipped}");
            report.AddFact("postgres", skipped);
            foreach (var method in new[] { VoronExport, MartenBulkInsert })
            {
                report.AddRow(("table", ExportSummaryTable), ("method", method), ("skipped", skipped));
            }

            return;
        }

        using var server = cluster;
        report.AddFact("postgres", server.Description);
        report.AddFact("exportDurability", "the export commits each batch (10,000 documents, PostgreSqlExportOptions' default) with its progress row in one PostgreSQL transaction; " +
                                           "Marten's bulk insert (batches of 1,000, its default) commits once at the end: both durable as the server's settings make a commit (postgres fact)");
        var profiles = Enumerable.Range(0, documents).Select(i => ProfileDataSet.Create(i)).ToList();
        var store = context.NewDirectory("export-store");
        var warmUpStore = context.NewDirectory("export-warm-up");
        context.Progress($"export: bulk-inserting {documents:N0} profiles into a Voron store (not timed)");
        using var environment = StorageEnvironment.Open(context.Disk.VoronOptions(store));
        await using var voron = VoronDocuments.Open(environment);
        await voron.BulkInsertAsync(profiles, ProfileJson.Default.Profile).ConfigureAwait(false);
        var warmUp = profiles.Take(Math.Min(documents, 1_000)).ToList();
        using var warmUpEnvironment = StorageEnvironment.Open(context.Disk.VoronOptions(warmUpStore));
        await using var warmUpVoron = VoronDocuments.Open(warmUpEnvironment);
        await warmUpVoron.BulkInsertAsync(warmUp, ProfileJson.Default.Profile).ConfigureAwait(false);

        // Untimed: the first use of Npgsql and of Marten (which generates and compiles its storage code for the type).
        context.Progress($"export: a warm-up run of each ({warmUp.Count:N0} documents; not timed)");
        await ExportOnceAsync(server, VoronExport, warmUpVoron, warmUp).ConfigureAwait(false);
        await ExportOnceAsync(server, MartenBulkInsert, warmUpVoron, warmUp).ConfigureAwait(false);

        string[] methods = [VoronExport, MartenBulkInsert];
        var seconds = methods.ToDictionary(m => m, _ => new List<double>());
        for (var run = 1; run <= runs; run++)
        {
            foreach (var method in InRunOrder(methods, run))
            {
                var elapsed = await ExportOnceAsync(server, method, voron, profiles).ConfigureAwait(false);
                seconds[method].Add(elapsed);
                context.Progress($"export run {run} of {runs}, {method}: {elapsed:F2} s, {documents / elapsed:N0} documents/s");
                report.AddRow(("table", ExportRunsTable), ("method", method), ("run", run), ("seconds", elapsed), ("documentsPerSec", documents / elapsed));
            }
        }

        var martenSeconds = Median.Of(seconds[MartenBulkInsert]);
        foreach (var method in methods)
        {
            var median = Median.Of(seconds[method]);
            report.AddRow(
                ("table", ExportSummaryTable),
                ("method", method),
                ("runs", seconds[method].Count),
                ("documents", documents),
                ("medianSeconds", median),
                ("documentsPerSec", documents / median),
                ("minDocumentsPerSec", documents / seconds[method].Max()),
                ("maxDocumentsPerSec", documents / seconds[method].Min()),
                ("vsMarten", martenSeconds / median));
        }

        report.AddNote($"export: {documents:N0} ~1 KiB profiles (the documents experiment's). {VoronExport}: the Voron store's collection (bulk-inserted beforehand, open) exported " +
                       "through binary COPY into an empty database, its table created by the export, from the call to its return (the row counts it checks at the end included). " +
                       $"{MartenBulkInsert}: the same profiles as objects, made before the clock starts, serialized by Marten, into another empty database whose schema Marten created " +
                       "beforehand (not timed), from the call to its return. Every run a new database of the same server, dropped after its rows are counted (not timed); " +
                       "a warm-up run of each first (not timed). documentsPerSec: documents over the median wall time; vsMarten: Marten's median time over the method's. " +
                       "Runs alternate the order.");
    }

    /// <summary>One timed export or bulk insert into a new database; the rows are checked and the database dropped afterwards.</summary>
    private static async Task<double> ExportOnceAsync(PostgresCluster server, string method, VoronDocuments voron, List<Profile> profiles)
    {
        var database = await server.CreateDatabaseAsync().ConfigureAwait(false);
        try
        {
            double elapsed;
            string table;
            if (method == VoronExport)
            {
                var watch = Stopwatch.StartNew();
                var result = await PostgreSqlExport.ExportAsync(voron, database).ConfigureAwait(false);
                elapsed = watch.Elapsed.TotalSeconds;
                table = result.Collections.Single().Table;
            }
            else
            {
                using var marten = MartenStore.For(options =>
                {
                    options.Connection(database);
                    options.AutoCreateSchemaObjects = AutoCreate.CreateOrUpdate;
                    options.Schema.For<Profile>();
                });
                await marten.Storage.ApplyAllConfiguredChangesToDatabaseAsync().ConfigureAwait(false);
                var watch = Stopwatch.StartNew();
                await marten.BulkInsertDocumentsAsync(profiles).ConfigureAwait(false);
                elapsed = watch.Elapsed.TotalSeconds;
                table = MartenTable;
            }

            var rows = await PostgresCluster.CountAsync(database, table).ConfigureAwait(false);
            if (rows != profiles.Count)
            {
                throw new InvalidOperationException($"{method} left {rows:N0} rows in {table}, not {profiles.Count:N0}.");
            }

            return elapsed;
        }
        finally
        {
            await server.DropDatabaseAsync(database).ConfigureAwait(false);
        }
    }
}
