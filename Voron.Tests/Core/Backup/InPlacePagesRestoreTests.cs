namespace Voron.Tests.Core.Backup;

/// <summary>
/// IP6 (Transactions/InPlacePages.cs): an archived record must restore its transaction by itself,
/// so a store with a journal archive journals every new page, however low its in-place threshold.
/// </summary>
public sealed class InPlacePagesRestoreTests(ITestOutputHelper output)
{
    /// <summary>
    /// Bulk loads (in-order keys and overflow values: pages the transaction creates, far above the
    /// threshold) and small writes, archived; a restore to every transaction since the backup gives
    /// exactly the model's state after it.
    /// </summary>
    [Fact]
    public async Task Restore_to_every_transaction_of_bulk_loads_gives_exactly_that_transaction()
    {
        var seed = TestSeed.Next(output, nameof(Restore_to_every_transaction_of_bulk_loads_gives_exactly_that_transaction));
        var random = new Random(seed);
        using var temp = new TempDirectory();
        var store = temp.Combine("store");
        var archive = temp.Combine("archive");
        var options = ArchivedHistory.Options(store, archive);
        options.InPlaceNewPagesThreshold = Constants.PageSize; // every created page would go in place without the archive
        var states = new Dictionary<long, StoreContents>();
        var model = new StoreContents();
        long backupTx;
        using (var env = StorageEnvironment.Open(options))
        {
            Commit(env, model, random, bulk: false, 0);
            backupTx = (await env.BackupAsync(temp.Combine("backup"))).TransactionId;
            states[backupTx] = model.Clone();
            for (var n = 1; n <= 12; n++)
            {
                Commit(env, model, random, bulk: n % 3 != 0, n);
                states[env.LastCommittedTransactionId] = model.Clone();
                if (n % 4 == 0)
                {
                    env.FlushToDataFile();
                }
            }

            Assert.Equal(0, env.InPlace.PagesWritten); // IP6
        }

        // The newest transactions stay in the live journal until their file is released (JA1):
        // restore to every transaction the archive reaches, which must be most of them.
        var reach = (await StorageEnvironment.RestoreAsync(temp.Combine("backup"), temp.Combine("reach"),
            new RestoreOptions { JournalArchiveDirectory = archive })).TransactionId;
        Assert.True(reach >= backupTx + 8, $"the archive reaches transaction {reach} only");
        foreach (var (target, expected) in states.Where(s => s.Key <= reach).OrderBy(s => s.Key))
        {
            var destination = temp.Combine($"restored-{target}");
            var result = await StorageEnvironment.RestoreAsync(temp.Combine("backup"), destination,
                new RestoreOptions { JournalArchiveDirectory = archive, ToTransactionId = target });
            Assert.Equal(target, result.TransactionId);
            StoreContents.AssertStore(destination, expected, target);
        }
    }

    private static void Commit(StorageEnvironment env, StoreContents model, Random random, bool bulk, int n)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(StoreContents.TreeName);
        var count = bulk ? random.Next(500, 2500) : random.Next(1, 10);
        for (var i = 0; i < count; i++)
        {
            var key = bulk ? $"b{n:D2}-{i:D5}" : $"k{random.Next(100):D3}";
            var value = new byte[i % 200 == 7 ? random.Next(9_000, 40_000) : random.Next(10, 200)];
            random.NextBytes(value);
            tree.Put(Encoding.UTF8.GetBytes(key), value);
            model.Entries[key] = value;
        }

        if (!bulk && model.Entries.Count > 0 && random.Next(2) == 0)
        {
            var victim = model.Entries.Keys.ElementAt(random.Next(model.Entries.Count));
            tree.Delete(Encoding.UTF8.GetBytes(victim));
            model.Entries.Remove(victim);
        }

        tx.Commit();
    }
}
