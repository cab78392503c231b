using Voron.LoadTests.Experiments.Replicate;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

/// <summary>
/// Tiny runs of the <c>replicate</c> experiment: every workload gives its rows, measured where its
/// destination or server is there and "skipped" with the reason where it is not, never missing.
/// The object servers run when VORON_OBJECT_SERVERS names their npm folder (.ci/run sets it), and
/// PostgreSQL when initdb is installed; the assertions follow what the machine has. No speed is
/// asserted.
/// </summary>
public sealed class ReplicateExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Replicate_is_a_suite_of_its_own_with_its_options()
    {
        Assert.IsType<ReplicateExperiment>(ExperimentCatalog.Find("replicate"));
        var parsed = CommandLine.Parse(["replicate", "--runs", "4", "--writers", "1,8", "--commits", "900", "--size", "16", "--documents", "5000",
            "--workloads", "shipping,export", "--object-servers", "/opt/servers", "--postgres", "Host=db;Username=u"]);
        Assert.Empty(parsed.Errors);
        Assert.Equal(4, parsed.GetValue(ExperimentCatalog.ReplicateRuns));
        Assert.Equal([1, 8], parsed.GetValue(ExperimentCatalog.ReplicateWriters)!);
        Assert.Equal(900, parsed.GetValue(ExperimentCatalog.ReplicateCommits));
        Assert.Equal(16, parsed.GetValue(ExperimentCatalog.ReplicateSize));
        Assert.Equal(5000, parsed.GetValue(ExperimentCatalog.ReplicateDocuments));
        Assert.Equal(["shipping", "export"], parsed.GetValue(ExperimentCatalog.ReplicateWorkloads)!);
        Assert.Equal("/opt/servers", parsed.GetValue(ExperimentCatalog.ReplicateObjectServers));
        Assert.Equal("Host=db;Username=u", parsed.GetValue(ExperimentCatalog.ReplicatePostgres));
        Assert.NotEmpty(CommandLine.Parse(["replicate", "--workloads", "lag"]).Errors);
    }

    [Fact]
    public async Task Replicate_reports_every_workload_and_every_destination_measured_or_skipped_with_the_reason()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));
        var servers = Environment.GetEnvironmentVariable(ReplicateExperiment.ObjectServersVariable);
        var serversThere = LoopbackObjectServer.WhyNot(servers, LoopbackObjectServer.S3rverPackage) == null &&
                           LoopbackObjectServer.WhyNot(servers, LoopbackObjectServer.AzuritePackage) == null;

        var report = await new ReplicateExperiment(runs: 1, writers: [1, 2], commits: 200, restoreBytes: 1L << 20, documents: 300).RunAsync(context);

        var shipping = Table(report, ReplicateExperiment.ShippingSummaryTable);
        Assert.Equal([.. ReplicateExperiment.ShippingVariants, .. ReplicateExperiment.ShippingVariants], shipping.Select(r => (string)r["variant"]!));
        Assert.Equal([1, 1, 1, 1, 2, 2, 2, 2], shipping.Select(r => (int)r["writers"]!));
        foreach (var row in shipping)
        {
            var variant = (string)row["variant"]!;
            if (variant is ArchiveTargets.S3rver or ArchiveTargets.Azurite && !serversThere)
            {
                Assert.StartsWith("skipped: ", (string)row["skipped"]!, StringComparison.Ordinal);
                Assert.Null(row.GetValueOrDefault("commitsPerSec"));
                continue;
            }

            Assert.True((double)row["commitsPerSec"]! > 0, variant);
            Assert.True((double)row["ackCommitsPerSec"]! >= (double)row["commitsPerSec"]!, variant);
            if (variant != ArchiveTargets.Off)
            {
                Assert.True((double)row["catchUpSeconds"]! >= 0);
                Assert.True((long)row["lastShippedFile"]! >= 1, $"{variant}: the run released and shipped at least one journal file");
                Assert.IsType<double>(row["vsOff"]);
                Assert.IsType<bool>(row["met"]);
            }
        }

        var restore = Table(report, ReplicateExperiment.RestoreSummaryTable);
        Assert.Equal([ReplicateExperiment.CpBaseline, .. ArchiveTargets.All], restore.Select(r => (string)r["method"]!));
        Assert.All(restore, r => Assert.True(r.GetValueOrDefault("skipped") is string || (double)r["MBps"]! > 0, (string)r["method"]!));
        Assert.Equal(serversThere, restore.All(r => r.GetValueOrDefault("skipped") is null || (string)r["method"]! == ReplicateExperiment.CpBaseline));
        Assert.All(Table(report, ReplicateExperiment.RestoreRunsTable).Where(r => (string)r["method"]! != ReplicateExperiment.CpBaseline),
            r => Assert.Equal(report.Facts.Single(f => f.Key == "restoreTransactionId").Value, r["transactionId"]));

        var export = Table(report, ReplicateExperiment.ExportSummaryTable);
        Assert.Equal([ReplicateExperiment.VoronExport, ReplicateExperiment.MartenBulkInsert], export.Select(r => (string)r["method"]!));
        Assert.All(export, r => Assert.True(
            r.GetValueOrDefault("skipped") is string skipped ? skipped.StartsWith("skipped: no PostgreSQL: ", StringComparison.Ordinal) : (double)r["documentsPerSec"]! > 0));

        var facts = report.Facts.ToDictionary(f => f.Key, f => f.Value);
        foreach (var fact in new[] { "fdatasyncMedianMs", "voronDurability", "offDurability", "directoryDestination", "s3rverDestination", "azuriteDestination",
                     "restoreDurability", "cpDurability", "postgres", "loadAverageAtStart" })
        {
            Assert.True(facts.ContainsKey(fact), fact);
        }

        Assert.Contains(report.Notes, n => n.Contains("at least 0.9x off", StringComparison.Ordinal));
        var follow = Table(report, ReplicateExperiment.FollowSummaryTable);
        Assert.Equal(ArchiveTargets.All, follow.Select(r => (string)r["variant"]!));
        Assert.All(follow, r => Assert.True(r.GetValueOrDefault("skipped") is string ||
            ((int)r["transactions"]! > 0 && (double)r["p99Ms"]! >= (double)r["p50Ms"]!), (string)r["variant"]!));
        Assert.Equal(serversThere, follow.All(r => r.GetValueOrDefault("skipped") is null));
        Assert.Contains(report.Notes, n => n.StartsWith("follower lag", StringComparison.Ordinal) && n.Contains("WaitForTransactionAsync", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Object_server_destinations_without_their_npm_folder_give_skipped_rows_naming_what_to_install()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));
        var missing = _directory.Combine("no-servers");

        var report = await new ReplicateExperiment(runs: 1, writers: [1], commits: 40, restoreBytes: 1L << 20,
            workloads: [ReplicateExperiment.ShippingWorkload, ReplicateExperiment.RestoreWorkload], objectServers: missing).RunAsync(context);

        foreach (var table in new[] { ReplicateExperiment.ShippingSummaryTable, ReplicateExperiment.RestoreSummaryTable })
        {
            foreach (var name in new[] { ArchiveTargets.S3rver, ArchiveTargets.Azurite })
            {
                var row = Assert.Single(Table(report, table), r => (string)(r.GetValueOrDefault("variant") ?? r["method"])! == name);
                Assert.Equal($"skipped: {missing} has no node_modules/{name}: run `npm install --prefix {missing} s3rver@3.7.1 azurite@3.35.0`", row["skipped"]);
            }

            Assert.Contains(Table(report, table), r => (string)(r.GetValueOrDefault("variant") ?? r["method"])! == ArchiveTargets.DirectoryTarget && r.GetValueOrDefault("skipped") is null);
        }

        Assert.Empty(Table(report, ReplicateExperiment.ExportSummaryTable));
        Assert.DoesNotContain(Table(report, ReplicateExperiment.ShippingRunsTable), r => (string)r["variant"]! is ArchiveTargets.S3rver or ArchiveTargets.Azurite);
    }

    private static List<Dictionary<string, object?>> Table(Report report, string table) =>
        [.. report.Rows.Where(r => (string?)r["table"] == table)];

    public void Dispose() => _directory.Dispose();
}
