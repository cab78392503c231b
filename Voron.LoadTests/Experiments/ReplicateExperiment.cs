using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Experiments.Replicate;

namespace Voron.LoadTests.Experiments;

/// <summary>
/// A store's life past one machine, measured against what it would cost without Voron's part.
/// Workloads, each on stores of its own, in the order <see cref="Workloads"/> lists them:
/// <list type="number">
/// <item>shipping (<c>ReplicateExperiment.Shipping.cs</c>): the same durable writes (1 KiB values,
///   one put per transaction through the merger, <c>--commits</c> per writer at each <c>--writers</c> count) on a store that
///   archives its journal with no destination (<see cref="ArchiveTargets.Off"/>) and on the same
///   store shipping to each destination (a directory, s3rver, Azurite): commits per second with
///   every write's work timed, the settle and the catch-up of the destination included, the
///   catch-up also apart; the ratio to off.</item>
/// <item>restore (<c>ReplicateExperiment.Restore.cs</c>): <see cref="ObjectArchive.RestoreAsync"/>
///   of one store's snapshot and shipped journal from each destination, against <c>cp</c> + <c>sync</c>
///   of the same objects' files: MB/s and seconds, the ratio to cp.</item>
/// <item>follow (<c>ReplicateExperiment.Follow.cs</c>): a read replica
///   (<see cref="StorageEnvironment.OpenReplica"/>) following a primary through each destination under a
///   steady write load: each transaction's lag from its acknowledgement on the primary to its
///   publication on the replica, p50 and p99.</item>
/// <item>export (<c>ReplicateExperiment.Export.cs</c>): <c>PostgreSqlExport.ExportAsync</c> of
///   <c>--documents</c> ~1 KiB profiles into a PostgreSQL database, against Marten's own
///   <c>BulkInsertDocumentsAsync</c> of the same documents into another database of the same
///   cluster: documents per second, the ratio to Marten.</item>
/// </list>
/// Every workload's variants run in the same process, interleaved, <c>--runs</c> times, the order
/// reversed every other run. A destination or a server that is not there gives rows that say
/// "skipped" and why, never no rows. MB is 10^6 bytes.
/// </summary>
internal sealed partial class ReplicateExperiment : IExperiment
{
    internal const string ShippingWorkload = "shipping";
    internal const string RestoreWorkload = "restore";
    internal const string ExportWorkload = "export";
    internal const string FollowWorkload = "follow";

    /// <summary>The workloads, in the order they run and <c>--workloads</c> names them.</summary>
    internal static readonly string[] Workloads = [ShippingWorkload, RestoreWorkload, FollowWorkload, ExportWorkload];

    /// <summary>The environment variable the object servers' npm folder comes from when <c>--object-servers</c> is not given.</summary>
    internal const string ObjectServersVariable = "VORON_OBJECT_SERVERS";

    private const int Seed = 20_261_207;
    private const int ValueBytes = 1024;
    private const string Tree = "replicate";

    private readonly int? _runs;
    private readonly int[]? _writers;
    private readonly int? _commits;
    private readonly long? _restoreBytes;
    private readonly int? _documents;
    private readonly string[]? _workloads;
    private readonly string? _objectServers;
    private readonly string? _postgres;

    /// <param name="runs">Interleaved runs of each variant; default 3, 2 with --quick.</param>
    /// <param name="writers">Writer counts of the shipping workload; default 1 and 16, 1 and 4 with --quick.</param>
    /// <param name="commits">Transactions each writer commits in a shipping run; default 1,000, 100 with --quick.</param>
    /// <param name="restoreBytes">Bytes of values the restored store is written with; default 64 MiB, 4 MiB with --quick.</param>
    /// <param name="documents">Documents exported to PostgreSQL; default 100,000, 2,000 with --quick.</param>
    /// <param name="workloads">Workloads to run; default all (<see cref="Workloads"/>).</param>
    /// <param name="objectServers">The npm folder with s3rver and azurite; default the variable <see cref="ObjectServersVariable"/>; none: those destinations are skipped.</param>
    /// <param name="postgres">A PostgreSQL server to export into (a connection string whose user may create databases); default a throwaway cluster started here.</param>
    public ReplicateExperiment(int? runs = null, int[]? writers = null, int? commits = null, long? restoreBytes = null, int? documents = null,
        string[]? workloads = null, string? objectServers = null, string? postgres = null)
    {
        _runs = runs;
        _writers = writers;
        _commits = commits;
        _restoreBytes = restoreBytes;
        _documents = documents;
        _workloads = workloads;
        _objectServers = objectServers;
        _postgres = postgres;
    }

    public string Name => "replicate";

    public string Description =>
        "the journal shipped to a directory, s3rver and Azurite against no shipping (commits/s, catch-up), restore from each against cp of the same bytes, a read replica's lag behind its primary, export to PostgreSQL against Marten's bulk insert";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var runs = _runs ?? (context.Quick ? 2 : 3);
        var workloads = _workloads is { Length: > 0 } named ? Workloads.Where(named.Contains).ToArray() : Workloads;
        var report = context.NewReport(Name, "Past one machine: shipping the journal, restoring from object storage, moving to PostgreSQL");
        report.GroupMarkdownBy("table");
        report.ShowGroupsFirst(ShippingSummaryTable, RestoreSummaryTable, FollowSummaryTable, ExportSummaryTable);
        report.AddFact("runs", runs);
        report.AddFact("workloads", string.Join(",", workloads));
        report.AddFact("loadAverageAtStart", KvExperiment.LoadAverage());
        var voron = KvEngineCatalog.All.First(k => k.Name == KvEngineCatalog.Voron);
        report.AddFact("voronDurability", voron.Durability);
        if (context.Disk.IsSimulated)
        {
            report.AddNote("SIMULATED DISK for the stores only: the directory destination, the object servers, the restores (StorageEnvironment.RestoreAsync opens " +
                           "the restored store on the real file system), cp + sync and PostgreSQL write to the real disk.");
        }

        var objectServers = _objectServers ?? Environment.GetEnvironmentVariable(ObjectServersVariable);
        if (workloads.Contains(ShippingWorkload) || workloads.Contains(RestoreWorkload) || workloads.Contains(FollowWorkload))
        {
            using var targets = ArchiveTargets.Start(context, objectServers);
            targets.AddTo(report);
            if (workloads.Contains(ShippingWorkload))
            {
                await MeasureShippingAsync(context, report, targets, runs).ConfigureAwait(false);
            }

            if (workloads.Contains(RestoreWorkload))
            {
                await MeasureRestoreAsync(context, report, targets, runs).ConfigureAwait(false);
            }

            if (workloads.Contains(FollowWorkload))
            {
                await MeasureFollowAsync(context, report, targets, runs).ConfigureAwait(false);
            }
        }

        if (workloads.Contains(ExportWorkload))
        {
            await MeasureExportAsync(context, report, runs).ConfigureAwait(false);
        }

        report.AddFact("loadAverageAtEnd", KvExperiment.LoadAverage());
        return report;
    }

    /// <summary>Bytes per second in MB/s (10^6 bytes).</summary>
    private static double MBps(long bytes, double seconds) => seconds > 0 ? bytes / 1e6 / seconds : 0;

    /// <summary>Each run's order: as listed on odd runs, reversed on even ones.</summary>
    private static IEnumerable<T> InRunOrder<T>(IReadOnlyList<T> items, int run) => run % 2 == 1 ? items : items.Reverse();

    /// <summary>Deletes a directory and everything under it, if it is there.</summary>
    private static void DeleteDirectory(string path)
    {
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
