using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Voron.Diagnostics;

namespace Voron.Tests.Documents.Concurrency;

public sealed class DocumentConcurrencyTests(ITestOutputHelper output)
{
    private static readonly TestJson Json = TestJson.Default;

    [Fact]
    public async Task Sessions_racing_on_the_same_ids_have_one_winner_per_version_and_lose_no_update()
    {
        var seed = TestSeed.Next(output, nameof(Sessions_racing_on_the_same_ids_have_one_winner_per_version_and_lose_no_update));
        using var directory = new TempDirectory();
        await using var store = DocumentTestStore.InDirectory(directory.Path);
        const int ids = 8;
        await using (var setup = store.OpenSession())
        {
            for (var i = 0; i < ids; i++)
            {
                setup.Store(DocumentTestStore.NewUser($"counter{i}", 0), Json.User, $"counters/{i}");
            }

            await setup.SaveChangesAsync();
        }

        var winners = new ConcurrentDictionary<(string Id, long Version), int>();
        var successes = new int[ids];
        var conflicts = 0;
        var workers = 32;
        var increments = CrashBudget.Count(40, 0.00001);
        await Task.WhenAll(Enumerable.Range(0, workers).Select(worker => Task.Run(async () =>
        {
            var random = new Random(seed + worker);
            for (var done = 0; done < increments;)
            {
                var target = random.Next(ids);
                var id = $"counters/{target}";
                await using var session = store.OpenSession();
                var user = (await session.LoadAsync(id, Json.User))!;
                var loaded = session.GetMetadata(user)!.Version;
                user.Age++;
                try
                {
                    await session.SaveChangesAsync(); // the loaded version is the expected one
                }
                catch (ConcurrencyException conflict)
                {
                    Assert.Equal(id, conflict.Id);
                    Assert.Equal(loaded, conflict.ExpectedVersion);
                    Assert.True(conflict.ActualVersion > loaded);
                    Interlocked.Increment(ref conflicts);
                    continue;
                }

                Assert.True(winners.TryAdd((id, loaded), worker), $"seed {seed}: two sessions won on version {loaded} of '{id}'");
                Interlocked.Increment(ref successes[target]);
                done++;
            }
        })));

        await using var check = store.OpenSession();
        for (var i = 0; i < ids; i++)
        {
            Assert.Equal(successes[i], (await check.LoadAsync($"counters/{i}", Json.User))!.Age); // no lost update
        }

        Assert.Equal(workers * increments, successes.Sum());
        output.WriteLine($"{workers * increments} increments, {conflicts} conflicts retried");
        store.CheckIntegrity();
    }

    [Fact]
    public async Task Concurrent_sessions_share_journal_flushes()
    {
        using var directory = new TempDirectory();
        await using var store = DocumentTestStore.InDirectory(directory.Path);
        var batches = 0L;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name == "voron.merger.batches")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == "voron.store" && Equals(tag.Value, store.Path))
                {
                    Interlocked.Add(ref batches, value);
                }
            }
        });
        listener.Start();

        const int sessions = 256;
        var saving = 0;
        // Holds the writer until every session has asked to save, so the sessions queue up as
        // they would under load, however the thread pool schedules them on this machine.
        var blocker = store.Environment.ExecuteAsync(_ =>
        {
            SpinWait.SpinUntil(() => Volatile.Read(ref saving) == sessions, TimeSpan.FromSeconds(30));
            Thread.Sleep(50); // the last one's SaveChangesAsync reaches the merger's queue
        });
        var tasks = Enumerable.Range(0, sessions).Select(i => Task.Run(async () =>
        {
            await using var session = store.OpenSession();
            session.Store(DocumentTestStore.NewUser($"u{i}", i), Json.User, $"users/{i}");
            Interlocked.Increment(ref saving);
            await session.SaveChangesAsync();
        })).ToList();
        await Task.WhenAll([blocker, .. tasks]);
        Assert.Equal(sessions, store.CheckIntegrity().Documents);

        // The merger counts a batch after it acknowledged the batch's operations, so the last
        // batch may not be counted yet when the sessions' tasks complete (with one batch, nothing
        // is). Disposing the store waits for its writer and in-flight commit (M3): every batch is
        // counted once it returns.
        await store.DisposeAsync();
        var flushes = Interlocked.Read(ref batches);
        output.WriteLine($"{sessions} concurrent sessions committed in {flushes} merged transactions (journal flushes)");
        Assert.True(flushes > 0 && flushes <= sessions / 4, $"{sessions} sessions took {flushes} journal flushes; concurrent sessions should share them");
    }

    [Fact]
    public async Task An_index_built_while_sessions_write_agrees_with_the_documents()
    {
        var seed = TestSeed.Next(output, nameof(An_index_built_while_sessions_write_agrees_with_the_documents));
        await using var store = DocumentTestStore.InMemory(o => o.IndexBuildBatchSize = 50);
        await store.BulkInsertAsync(Enumerable.Range(0, 3000).Select(i => DocumentTestStore.NewUser($"u{i}", i % 70, $"{i}@x")), Json.User);
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 4).Select(w => Task.Run(async () =>
        {
            var random = new Random(seed + w);
            while (!stop.IsCancellationRequested)
            {
                await using var session = store.OpenSession();
                var id = $"User/{random.Next(1, 3200)}";
                var user = await session.LoadAsync(id, Json.User);
                if (user == null)
                {
                    session.Store(DocumentTestStore.NewUser("late", random.Next(70)), Json.User, id);
                }
                else if (random.Next(4) == 0)
                {
                    session.Delete(user);
                }
                else
                {
                    user.Age = random.Next(70);
                }

                try
                {
                    await session.SaveChangesAsync();
                }
                catch (ConcurrencyException)
                {
                    // another writer got there first
                }
            }
        })).ToList();

        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age_name", u => u.Age, u => u.Name));
        await Task.Delay(200);
        await stop.CancelAsync();
        await Task.WhenAll(writers);
        var report = store.CheckIntegrity();
        Assert.Equal(2 * report.Documents, report.IndexEntries);
        await using var session = store.OpenSession();
        Assert.Equal(report.Documents, await session.Query(Json.User).CountAsync(u => u.Age >= 0));
    }
}
