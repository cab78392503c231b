using Azure.Storage.Blobs;
using Voron.ObjectStorage;

namespace Voron.LoadTests.Experiments.Replicate;

/// <summary>
/// The destinations a store's archive is shipped to and restored from in the replicate
/// experiment: a directory on the run's disk, s3rver and Azurite on loopback (started here from
/// the npm folder the run names, and stopped by Dispose). A destination that cannot be had keeps
/// its place in <see cref="All"/> with the reason (<see cref="WhyNot"/>), so its rows say why they
/// are skipped. Each <see cref="OpenAsync"/> gives a destination under a fresh key prefix, so runs
/// never see each other's objects.
/// </summary>
internal sealed class ArchiveTargets : IDisposable
{
    /// <summary>The store archives its journal locally and ships nowhere: the baseline of shipping.</summary>
    public const string Off = "off";
    public const string DirectoryTarget = "directory";
    public const string S3rver = "s3rver";
    public const string Azurite = "azurite";

    /// <summary>The destinations, in report order.</summary>
    public static readonly string[] All = [DirectoryTarget, S3rver, Azurite];

    // s3rver accepts any credentials (it checks no signature); these are its documented defaults.
    private const string S3rverKey = "S3RVER";

    private readonly string _root;
    private readonly Dictionary<string, string> _whyNot = [];
    private readonly Dictionary<string, string> _describe = [];
    private LoopbackObjectServer? _s3rver;
    private LoopbackObjectServer? _azurite;
    private int _prefixes;

    private ArchiveTargets(string root) => _root = root;

    /// <summary>Makes the directory destination's folder and starts the servers that <paramref name="objectServers"/> has; the others are skipped with the reason.</summary>
    public static ArchiveTargets Start(ExperimentContext context, string? objectServers)
    {
        var targets = new ArchiveTargets(context.NewDirectory("destinations"));
        targets._describe[DirectoryTarget] = $"DirectoryArchiveDestination under {Path.Combine(targets._root, DirectoryTarget)} (the run's disk): each object written to a temporary name, fsynced, linked, the directory fsynced";
        try
        {
            foreach (var (name, package) in new[] { (S3rver, LoopbackObjectServer.S3rverPackage), (Azurite, LoopbackObjectServer.AzuritePackage) })
            {
                if (LoopbackObjectServer.WhyNot(objectServers, package) is { } reason)
                {
                    targets._whyNot[name] = $"skipped: {reason}";
                    context.Progress($"{name}: {targets._whyNot[name]}");
                    continue;
                }

                var data = Path.Combine(targets._root, name + "-data");
                Directory.CreateDirectory(data);
                context.Progress($"starting {name} on loopback from {objectServers} (not timed)");
                if (name == S3rver)
                {
                    targets._s3rver = LoopbackObjectServer.StartS3rver(objectServers!, data);
                    targets._describe[name] = $"s3rver {targets._s3rver.Version} on {targets._s3rver.Endpoint} (loopback), through S3ArchiveDestination.ForEndpoint (AWSSDK.S3): objects as files under the run's disk, not fsynced";
                }
                else
                {
                    targets._azurite = LoopbackObjectServer.StartAzurite(objectServers!, data);
                    targets._describe[name] = $"Azurite {targets._azurite.Version} on 127.0.0.1:{targets._azurite.Port} (loopback), through AzureBlobArchiveDestination (Azure.Storage.Blobs): blobs as files under the run's disk, not fsynced";
                }
            }
        }
        catch
        {
            targets.Dispose();
            throw;
        }

        return targets;
    }

    /// <summary>Why <paramref name="name"/> cannot be measured ("skipped: ..."), or null when it can.</summary>
    public string? WhyNot(string name) => _whyNot.GetValueOrDefault(name);

    /// <summary>States each destination (what it is and how durable) or why it is skipped.</summary>
    public void AddTo(Report report)
    {
        report.AddFact("offDurability", "JournalArchiveDirectory set, no ArchiveDestination: each released journal file is moved into the local archive; nothing leaves the machine");
        foreach (var name in All)
        {
            report.AddFact($"{name}Destination", _whyNot.GetValueOrDefault(name) ?? _describe[name]);
        }
    }

    /// <summary>A destination of <paramref name="name"/> under a key prefix no other call gets; dispose it after use.</summary>
    public async Task<IArchiveDestination> OpenAsync(string name)
    {
        var prefix = $"run-{Interlocked.Increment(ref _prefixes):D4}";
        switch (name)
        {
            case DirectoryTarget:
                return new DirectoryArchiveDestination(Path.Combine(_root, DirectoryTarget, prefix));
            case S3rver when _s3rver is { } s3:
                return S3ArchiveDestination.ForEndpoint(s3.Endpoint, LoopbackObjectServer.Bucket, S3rverKey, S3rverKey, prefix);
            case Azurite when _azurite is { } azurite:
                var container = new BlobContainerClient(azurite.AzuriteConnectionString, LoopbackObjectServer.Bucket);
                await container.CreateIfNotExistsAsync().ConfigureAwait(false);
                return new AzureBlobArchiveDestination(container, prefix);
            default:
                throw new InvalidOperationException($"the destination '{name}' is not available here: {WhyNot(name) ?? "unknown name"}.");
        }
    }

    public void Dispose()
    {
        _s3rver?.Dispose();
        _azurite?.Dispose();
    }
}
