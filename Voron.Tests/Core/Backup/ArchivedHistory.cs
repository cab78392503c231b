using Voron.PageFiles;
using Voron.Testing;
using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Core.Backup;

/// <summary>
/// A seeded random workload on a store that archives its journal (small journal files, frequent
/// releases), with a full backup near its start and the model's state after every transaction.
/// </summary>
internal sealed class ArchivedHistory : IDisposable
{
    private readonly TempDirectory _temp = new();

    private ArchivedHistory()
    {
    }

    public string Store => _temp.Combine("store");

    public string Archive => _temp.Combine("archive");

    public string Backup => _temp.Combine("backup");

    public long BackupTxId { get; private set; }

    /// <summary>The model after each transaction, from the backup's on.</summary>
    public Dictionary<long, StoreContents> States { get; } = [];

    /// <summary>A time before the backup's snapshot committed (after its third transaction).</summary>
    public DateTimeOffset TimeBeforeBackup { get; private set; }

    /// <summary>A time after transaction <see cref="TimedTxId"/> committed and before the next one did.</summary>
    public DateTimeOffset TimeBetween { get; private set; }

    public long TimedTxId { get; private set; }

    public long LastTxId { get; private set; }

    public string Combine(string name) => _temp.Combine(name);

    public static StorageEnvironmentOptions Options(string store, string archive)
    {
        var options = StorageEnvironmentOptions.ForDirectory(store);
        options.JournalFileSize = 64 << 10;
        options.JournalArchiveDirectory = archive;
        options.BackgroundFlush = false;
        return options;
    }

    public static async Task<ArchivedHistory> Create(int seed, int transactions)
    {
        var history = new ArchivedHistory();
        var random = new Random(seed);
        var model = new StoreContents();

        // Commit times come from a clock moved by hand, an hour behind the real one (a store
        // reopened later with the system clock keeps its commit times growing, JA10): the times
        // the tests restore to fall between two commits whatever the machine's load.
        var clock = new ManualTimeProvider();
        clock.Advance(TimeSpan.FromHours(-1));
        var options = Options(history.Store, history.Archive);
        options.Clock = clock;
        using var env = StorageEnvironment.Open(options);
        for (var n = 0; n < transactions; n++)
        {
            if (n == 3)
            {
                clock.Advance(TimeSpan.FromSeconds(1));
                history.TimeBeforeBackup = clock.GetUtcNow();
                clock.Advance(TimeSpan.FromSeconds(1));
            }

            if (n == 5)
            {
                var backup = await env.BackupAsync(history.Backup);
                history.BackupTxId = backup.TransactionId;
                history.States[backup.TransactionId] = model.Clone();
            }

            if (n == transactions / 2)
            {
                clock.Advance(TimeSpan.FromSeconds(1));
                history.TimeBetween = clock.GetUtcNow();
                history.TimedTxId = env.LastCommittedTransactionId;
                clock.Advance(TimeSpan.FromSeconds(1));
            }

            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree(StoreContents.TreeName);
                for (var op = random.Next(1, 6); op > 0; op--)
                {
                    var key = $"k{random.Next(120):D3}";
                    switch (random.Next(10))
                    {
                        case < 2:
                            tree.Delete(Encoding.UTF8.GetBytes(key));
                            model.Entries.Remove(key);
                            break;
                        case < 3:
                            var block = new byte[PageFile.BlockSize];
                            random.NextBytes(block);
                            var offset = (long)random.Next(12) * PageFile.BlockSize;
                            tx.CreatePageFile(StoreContents.PageFileName).Write(offset, block);
                            model.WritePageFile(offset, block);
                            break;
                        default:
                            var value = new byte[random.Next(8) == 0 ? random.Next(9000, 30000) : random.Next(1, 400)];
                            random.NextBytes(value);
                            tree.Put(Encoding.UTF8.GetBytes(key), value);
                            model.Entries[key] = value;
                            break;
                    }
                }

                if (n == 0)
                {
                    tx.CreatePageFile(StoreContents.PageFileName);
                }

                tx.Commit();
                if (n >= 5)
                {
                    history.States[tx.Id] = model.Clone();
                }

                history.LastTxId = tx.Id;
            }

            if (n % 7 == 6)
            {
                env.FlushToDataFile(); // releases (archives) every file before the header's
            }
        }

        return history;
    }

    public void Dispose() => _temp.Dispose();
}
