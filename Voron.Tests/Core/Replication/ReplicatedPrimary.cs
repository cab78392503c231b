using System.Collections.Concurrent;
using Voron.Tests.Core.Backup;

namespace Voron.Tests.Core.Replication;

/// <summary>
/// A primary that ships its journal to a destination (small journal files, shipped on demand), a
/// seeded random workload of puts and deletes across several trees in transactions of random size,
/// and the model's state after every transaction, by id.
/// </summary>
internal sealed class ReplicatedPrimary : IDisposable
{
    public static readonly string[] Trees = ["orders", "users", "events"];

    private readonly TempDirectory _temp = new();
    private readonly Random _random;
    private readonly Dictionary<string, SortedDictionary<string, byte[]>> _model = [];

    /// <param name="configure">Changes the primary's options after these defaults (a test that ships in the background, or moves the clock).</param>
    public ReplicatedPrimary(int seed, IArchiveDestination? destination = null, Action<StorageEnvironmentOptions>? configure = null)
    {
        _random = new Random(seed);
        Destination = destination ?? new DirectoryArchiveDestination(Remote);
        var options = ArchivedHistory.Options(Combine("primary"), Combine("archive"));
        options.ArchiveDestination = Destination;
        options.ShipArchiveInBackground = false;
        configure?.Invoke(options);
        Env = StorageEnvironment.Open(options);
        States[0] = Snapshot();
    }

    public string Remote => _temp.Combine("remote");

    public IArchiveDestination Destination { get; }

    public StorageEnvironment Env { get; }

    public string Lineage => Env.StoreId.ToString("x16", CultureInfo.InvariantCulture);

    /// <summary>The model after each transaction (written before the transaction is shipped, read by checkers on other threads).</summary>
    public ConcurrentDictionary<long, Dictionary<string, SortedDictionary<string, byte[]>>> States { get; } = new();

    public string Combine(string name) => _temp.Combine(name);

    /// <summary>Commits <paramref name="transactions"/> random transactions of 1..12 operations each; values are sometimes large (overflow runs).</summary>
    public void Commit(int transactions)
    {
        for (var n = 0; n < transactions; n++)
        {
            using var tx = Env.BeginWrite();
            for (var op = _random.Next(1, 13); op > 0; op--)
            {
                var name = Trees[_random.Next(Trees.Length)];
                var tree = tx.CreateTree(name);
                var model = _model.TryGetValue(name, out var found) ? found : _model[name] = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
                var key = $"k{_random.Next(200):D3}";
                if (_random.Next(4) == 0)
                {
                    tree.Delete(Encoding.UTF8.GetBytes(key));
                    model.Remove(key);
                }
                else
                {
                    var value = new byte[_random.Next(10) == 0 ? _random.Next(9_000, 40_000) : _random.Next(1, 600)];
                    _random.NextBytes(value);
                    tree.Put(Encoding.UTF8.GetBytes(key), value);
                    model[key] = value;
                }
            }

            tx.Commit();
            States[tx.Id] = Snapshot();
        }
    }

    /// <summary>A backup of the primary uploaded as a snapshot; returns its transaction.</summary>
    public async Task<long> UploadSnapshotAsync(string name = "backup")
    {
        var backup = await Env.BackupAsync(Combine(name));
        await ObjectArchive.UploadSnapshotAsync(Destination, backup.Directory);
        return backup.TransactionId;
    }

    /// <summary>Releases the journal's files (flush) and ships them; returns the last transaction the destination holds.</summary>
    public async Task<long> ShipAsync()
    {
        Env.FlushToDataFile();
        var status = await Env.ShipArchiveAsync();
        return status.LastShippedTransaction;
    }

    /// <summary>
    /// A snapshot after <paramref name="before"/> transactions, <paramref name="after"/> more shipped, and a
    /// replica in <paramref name="directory"/> that applied them all and was closed; returns the last one shipped.
    /// </summary>
    public async Task<long> FollowedReplicaAsync(string directory, int before, int after)
    {
        Commit(before);
        await UploadSnapshotAsync();
        Commit(after);
        var shipped = await ShipAsync();
        using var replica = StorageEnvironment.OpenReplica(Destination, directory, ReplicaModelTests.FastOptions(Lineage));
        using var timeout = new CancellationTokenSource(ReplicaModelTests.Patience);
        await replica.WaitForTransactionAsync(shipped, timeout.Token);
        return shipped;
    }

    /// <summary>Commits and ships until at least <paramref name="count"/> journal objects numbered above <paramref name="known"/> are there; returns the last one shipped.</summary>
    public async Task<long> ShipObjectsAfterAsync(long known, int count, Random random)
    {
        long shipped;
        do
        {
            Commit(random.Next(5, 20));
            shipped = await ShipAsync();
        }
        while (JournalObjects().Keys.Count(n => n > known) < count);

        return shipped;
    }

    /// <summary>The journal objects the destination holds, by file number.</summary>
    public SortedDictionary<long, string> JournalObjects()
    {
        var directory = Path.Combine(Remote, Lineage, "journal");
        var objects = new SortedDictionary<long, string>();
        foreach (var file in Directory.GetFiles(directory))
        {
            objects[long.Parse(Path.GetFileName(file), NumberStyles.HexNumber, CultureInfo.InvariantCulture)] = file;
        }

        return objects;
    }

    /// <summary>The last transaction of a shipped journal object (its header's LastTx).</summary>
    public static long LastTxOf(string objectPath)
    {
        var header = File.ReadAllBytes(objectPath).AsSpan(0, Voron.Archive.ArchiveObjectHeader.Size);
        return Voron.Archive.ArchiveObjectHeader.Decode(header, objectPath).LastTx;
    }

    /// <summary>Every tree of <paramref name="read"/> as the model holds them.</summary>
    public static Dictionary<string, SortedDictionary<string, byte[]>> Read(ReadTransaction read)
    {
        var result = new Dictionary<string, SortedDictionary<string, byte[]>>();
        foreach (var name in read.GetTreeNames())
        {
            var entries = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
            var iterator = read.OpenTree(name)!.Iterate();
            for (var more = iterator.SeekFirst(); more; more = iterator.MoveNext())
            {
                entries[Encoding.UTF8.GetString(iterator.Key)] = iterator.Value.ToArray();
            }

            result[name] = entries;
        }

        return result;
    }

    /// <summary>Null when <paramref name="actual"/> equals the model at <paramref name="txId"/>, else what differs.</summary>
    public string? Compare(long txId, Dictionary<string, SortedDictionary<string, byte[]>> actual)
    {
        if (!States.TryGetValue(txId, out var expected))
        {
            return $"the replica shows transaction {txId}, which the primary never committed";
        }

        foreach (var name in expected.Keys.Union(actual.Keys))
        {
            var want = expected.GetValueOrDefault(name) ?? [];
            var got = actual.GetValueOrDefault(name) ?? [];
            if (want.Count != got.Count)
            {
                return $"tx {txId}: tree {name} holds {got.Count} entries, the model {want.Count}";
            }

            foreach (var (key, value) in want)
            {
                if (!got.TryGetValue(key, out var other) || !other.AsSpan().SequenceEqual(value))
                {
                    return $"tx {txId}: tree {name} key {key} differs from the model";
                }
            }
        }

        return null;
    }

    private Dictionary<string, SortedDictionary<string, byte[]>> Snapshot() =>
        _model.ToDictionary(p => p.Key, p => new SortedDictionary<string, byte[]>(p.Value, StringComparer.Ordinal));

    public void Dispose()
    {
        Env.Dispose();
        _temp.Dispose();
    }
}
