using Voron.PageFiles;
using Voron.Tests.Core.Backup;

namespace Voron.Tests.Core.Archive;

/// <summary>
/// A store that archives its journal (small files, frequent releases) and ships the archive to a
/// destination, with a seeded random workload and the model's state after every transaction.
/// </summary>
internal sealed class ShippingWorkload : IDisposable
{
    private readonly TempDirectory _temp = new();
    private readonly Random _random;
    private readonly StoreContents _model = new();

    private readonly Func<StorageEnvironmentOptions> _options;

    public ShippingWorkload(int seed, IArchiveDestination destination, bool background = false, TimeSpan? interval = null,
        Action<StorageEnvironmentOptions>? configure = null)
    {
        _random = new Random(seed);
        _options = () =>
        {
            var options = ArchivedHistory.Options(Store, Archive);
            options.ArchiveDestination = destination;
            options.ShipArchiveInBackground = background;
            options.ArchiveShippingInterval = interval ?? TimeSpan.FromSeconds(1);
            configure?.Invoke(options);
            return options;
        };
        Env = StorageEnvironment.Open(_options());
    }

    /// <summary>Closes the store (as a crash does, without the final flush, when <paramref name="crash"/>) and opens it again with the same options.</summary>
    public void Reopen(bool crash)
    {
        if (crash)
        {
            Env.CloseWithoutFlush();
        }
        else
        {
            Env.Dispose();
        }

        Env = StorageEnvironment.Open(_options());
    }

    /// <summary>Closes the store, compacts it offline with the same options (a new store id: a new lineage) and opens it again.</summary>
    public async Task CompactAsync()
    {
        Env.Dispose();
        await StorageEnvironment.CompactAsync(_options());
        Env = StorageEnvironment.Open(_options());
    }

    public string Store => _temp.Combine("store");

    public string Archive => _temp.Combine("archive");

    public StorageEnvironment Env { get; private set; }

    public ulong Lineage => Env.StoreId;

    public string LineageText => Lineage.ToString("x16", CultureInfo.InvariantCulture);

    /// <summary>The model after each transaction.</summary>
    public Dictionary<long, StoreContents> States { get; } = [];

    public string Combine(string name) => _temp.Combine(name);

    /// <summary>Commits <paramref name="transactions"/> random transactions, releasing (archiving) journal files every 7th.</summary>
    public void Commit(int transactions)
    {
        for (var n = 0; n < transactions; n++)
        {
            using (var tx = Env.BeginWrite())
            {
                var tree = tx.CreateTree(StoreContents.TreeName);
                var pageFile = tx.CreatePageFile(StoreContents.PageFileName);
                for (var op = _random.Next(1, 6); op > 0; op--)
                {
                    var key = $"k{_random.Next(120):D3}";
                    switch (_random.Next(10))
                    {
                        case < 2:
                            tree.Delete(Encoding.UTF8.GetBytes(key));
                            _model.Entries.Remove(key);
                            break;
                        case < 3:
                            var block = new byte[PageFile.BlockSize];
                            _random.NextBytes(block);
                            var offset = (long)_random.Next(12) * PageFile.BlockSize;
                            pageFile.Write(offset, block);
                            _model.WritePageFile(offset, block);
                            break;
                        default:
                            var value = new byte[_random.Next(8) == 0 ? _random.Next(9000, 30000) : _random.Next(1, 400)];
                            _random.NextBytes(value);
                            tree.Put(Encoding.UTF8.GetBytes(key), value);
                            _model.Entries[key] = value;
                            break;
                    }
                }

                tx.Commit();
                States[tx.Id] = _model.Clone();
            }

            if (_random.Next(7) == 0)
            {
                Env.FlushToDataFile(); // releases (archives) every file before the header's
            }
        }
    }

    /// <summary>The local archive's journal file numbers.</summary>
    public List<long> LocalFiles() => JournalFiles.List(StorageEnvironmentOptions.ForDirectory(Archive).FileSystem, Archive);

    public void Dispose()
    {
        Env.Dispose();
        _temp.Dispose();
    }
}
