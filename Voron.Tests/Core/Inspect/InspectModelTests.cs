namespace Voron.Tests.Core.Inspect;

/// <summary>
/// SI3 against the store itself: after random commits, flushes, clean closes and kills, the
/// transaction Inspect says an open would end with is the one the open ends with.
/// </summary>
public sealed class InspectModelTests(ITestOutputHelper output) : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void Inspect_LastTransactionId_is_what_the_store_says_after_reopening()
    {
        var seed = TestSeed.Next(output, nameof(InspectModelTests));
        var random = new Random(seed);
        var store = _directory.Combine("store");
        var key = 0;
        long expected = 0;
        for (var round = 0; round < 12; round++)
        {
            var durability = random.Next(2) == 0 ? DurabilityMode.Durable : DurabilityMode.Lazy;
            var env = StorageEnvironment.Open(InspectStores.Options(store, durability: durability));
            var where = $"round {round} (seed {seed})";
            Assert.True(expected == env.LastCommittedTransactionId, $"{where}: Inspect said {expected}, the open ended with {env.LastCommittedTransactionId}");
            var commits = random.Next(0, 6);
            for (var i = 0; i < commits; i++)
            {
                InspectStores.Commit(env, key++, random.Next(10, 9000), random);
                if (random.Next(4) == 0)
                {
                    env.FlushToDataFile();
                }
            }

            var committed = env.LastCommittedTransactionId;
            var clean = random.Next(3) == 0;
            if (clean)
            {
                env.Dispose();
            }
            else
            {
                env.CloseWithoutFlush(); // as a killed process leaves it (the OS keeps what was written)
            }

            var info = StorageEnvironment.Inspect(store);
            Assert.True(committed == info.LastTransactionId, $"{where}: committed {committed}, Inspect says {info.LastTransactionId}");
            Assert.True(info.LastTransactionId - info.LastSyncedTransactionId == info.JournalTransactions, where);
            Assert.True(info.Problems.Count == 0, $"{where}: {string.Join(" | ", info.Problems)}");
            Assert.True(clean ? info.ClosedCleanly : info.ClosedCleanly == (info.JournalTransactions == 0), $"{where}: clean {clean}, ClosedCleanly {info.ClosedCleanly}, journal {info.JournalTransactions}");
            Assert.Equal(durability, info.Lock.Durability);
            expected = info.LastTransactionId;
        }

        using var last = StorageEnvironment.Open(InspectStores.Options(store));
        Assert.Equal(expected, last.LastCommittedTransactionId);
    }
}
