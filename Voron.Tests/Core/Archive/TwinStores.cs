using Voron.Tests.Core.Backup;
using Voron.Tests.Documents.Expiration;

namespace Voron.Tests.Core.Archive;

/// <summary>
/// Two copies of one store (its directory and its journal archive copied whole while closed), so
/// both ship into one lineage of one destination: what the writer's lease exists to stop. Both
/// read one clock that the test moves; neither ships in the background.
/// </summary>
internal sealed class TwinStores : IDisposable
{
    private readonly TempDirectory _temp = new();
    private readonly IArchiveDestination _destination;
    private readonly TimeSpan _leaseDuration;
    private readonly Random _random = new(48); // incompressible values, the same in every run
    private int _written;

    public TwinStores(IArchiveDestination destination, TimeSpan? leaseDuration = null)
    {
        _destination = destination;
        _leaseDuration = leaseDuration ?? TimeSpan.FromMinutes(1);
        using (var original = StorageEnvironment.Open(ArchivedHistory.Options(Store("a"), Archive("a"))))
        {
            Commit(original, 12);
        }

        Copy(Store("a"), Store("b"));
        Copy(Archive("a"), Archive("b"));
        A = Open("a");
        B = Open("b");
    }

    public ManualClock Clock { get; } = new(new DateTimeOffset(2026, 12, 7, 0, 0, 0, TimeSpan.Zero));

    public StorageEnvironment A { get; private set; }

    public StorageEnvironment B { get; private set; }

    public ulong Lineage => A.StoreId;

    public string Archive(string name) => _temp.Combine(name + "-archive");

    /// <summary>Opens copy <paramref name="name"/> again (after <see cref="Close"/>), as a restarted process does.</summary>
    public StorageEnvironment Open(string name, IArchiveDestination? destination = null)
    {
        var options = ArchivedHistory.Options(Store(name), Archive(name));
        options.ArchiveDestination = destination ?? _destination;
        options.ShipArchiveInBackground = false;
        options.ArchiveLeaseDuration = _leaseDuration;
        options.ArchiveLeaseClock = Clock;
        var env = StorageEnvironment.Open(options);
        if (name == "a")
        {
            A = env;
        }
        else
        {
            B = env;
        }

        return env;
    }

    /// <summary>Commits <paramref name="transactions"/> transactions of a few KiB each and releases the journal's files into the archive.</summary>
    public void Commit(StorageEnvironment env, int transactions)
    {
        for (var n = 0; n < transactions; n++, _written++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("twins");
            for (var i = 0; i < 8; i++)
            {
                var value = new byte[3000];
                _random.NextBytes(value);
                tree.Put(Encoding.UTF8.GetBytes($"k{_written:D5}-{i}"), value);
            }

            tx.Commit();
        }

        env.FlushToDataFile();
    }

    /// <summary>The local archive's journal file numbers of copy <paramref name="name"/>.</summary>
    public List<long> LocalFiles(string name) => JournalFiles.List(StorageEnvironmentOptions.ForDirectory(Archive(name)).FileSystem, Archive(name));

    public void Dispose()
    {
        A.Dispose();
        B.Dispose();
        _temp.Dispose();
    }

    private string Store(string name) => _temp.Combine(name + "-store");

    private static void Copy(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (var file in Directory.EnumerateFiles(from, "*", SearchOption.AllDirectories))
        {
            var target = Path.Combine(to, Path.GetRelativePath(from, file));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }
}
