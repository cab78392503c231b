namespace Voron.Tests.Documents.Changes;

/// <summary>CF3, CF7: a live consumer under concurrent writers sees every committed change exactly once, in version order.</summary>
public sealed class ChangeFeedLiveTailTests
{
    private static readonly TestJson Json = TestJson.Default;

    /// <summary>100,000 changes (16 writers x 6,250 saves) under VORON_SOAK; 20,000 (16 x 1,250) otherwise, to stay well under 30 s on a busy 2-core CI machine.</summary>
    private static int SavesPerWriter => CrashBudget.Soak == null ? 1_250 : 6_250;

    [Fact]
    public async Task A_live_consumer_sees_every_change_of_16_writers_once_in_version_order()
    {
        const int writers = 16;
        var perWriter = SavesPerWriter;
        var total = writers * perWriter;
        await using var store = DocumentTestStore.InMemory();
        using var guard = new CancellationTokenSource(FeedReader.HangGuard); // a hang guard only

        var received = new List<DocumentChange>(total);
        var consumer = Task.Run(async () =>
        {
            await foreach (var change in store.Changes(0, cancellationToken: guard.Token))
            {
                received.Add(change);
                if (received.Count == total)
                {
                    break;
                }
            }
        });

        var reported = new (string Id, long Version)[writers][];
        var tasks = Enumerable.Range(0, writers).Select(w => Task.Run(async () =>
        {
            var mine = new (string, long)[perWriter];
            for (var i = 0; i < perWriter; i++)
            {
                var id = i % 2 == 0 ? $"users/{w}-{i}" : $"users/{w}-{i - 1}"; // new documents and updates
                await using var session = store.OpenSession();
                var entity = DocumentTestStore.NewUser($"writer {w}", i);
                session.Store(entity, Json.User, id, expectedVersion: null);
                await session.SaveChangesAsync(guard.Token);
                mine[i] = (id, session.GetMetadata(entity)!.Version);
            }

            reported[w] = mine;
        })).ToArray();

        await Task.WhenAll(tasks);
        await consumer.WaitAsync(guard.Token);

        Assert.Equal(total, received.Count);
        for (var i = 1; i < received.Count; i++)
        {
            Assert.True(received[i].Version > received[i - 1].Version, $"change {i} has version {received[i].Version} after {received[i - 1].Version}");
        }

        var expected = reported.SelectMany(r => r).OrderBy(r => r.Version).ToList();
        Assert.Equal(expected, received.Select(c => (c.Id, c.Version)));
        Assert.Equal(Enumerable.Range(1, total).Select(v => (long)v), received.Select(c => c.Version)); // no gap: every write of this test is a stored change
    }
}
