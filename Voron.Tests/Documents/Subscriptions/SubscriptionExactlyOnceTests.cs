using Voron.Tests.Documents.Changes;

namespace Voron.Tests.Documents.Subscriptions;

/// <summary>
/// SU1 end to end: a worker that writes its effects through <see cref="SubscriptionBatch.OpenSession"/>
/// processes every change exactly once, although it is killed between batches (disposed without
/// an acknowledgement, sometimes with its session's documents unsaved) and the store is reopened.
/// </summary>
public sealed class SubscriptionExactlyOnceTests(Xunit.Abstractions.ITestOutputHelper output)
{
    [Fact]
    public async Task Every_change_gets_exactly_one_derived_document_across_killed_workers_and_reopens()
    {
        var seed = TestSeed.Next(output, nameof(Every_change_gets_exactly_one_derived_document_across_killed_workers_and_reopens));
        var random = new Random(seed);
        var path = Path.Combine(Path.GetTempPath(), "voron-subs-" + Guid.NewGuid().ToString("N"));
        var sources = new List<long>();
        var kills = 0;
        try
        {
            var store = DocumentTestStore.InDirectory(path);
            await store.Subscriptions.CreateAsync("derive", collection: "User");
            for (var round = 0; round < 12; round++)
            {
                sources.AddRange(await SubscriptionTestData.SaveUsersAsync(store, random.Next(1, 8), $"r{round}-"));
                await SubscriptionTestData.SaveNoteAsync(store, "noise"); // another collection's change in between
                var worker = await store.Subscriptions.OpenAsync("derive", new SubscriptionWorkerOptions { MaxBatchSize = random.Next(1, 6), WaitTimeout = TimeSpan.Zero });
                for (var step = random.Next(1, 4); step > 0 && worker.Position < sources[^1]; step--)
                {
                    var batch = await worker.NextBatchGuardedAsync();
                    await using var session = batch.OpenSession();
                    foreach (var change in batch.Changes)
                    {
                        SubscriptionTestData.Derive(session, change);
                    }

                    if (random.Next(4) == 0)
                    {
                        kills++;
                        break; // killed before its save: the documents and the acknowledgement are lost together
                    }

                    await session.SaveChangesAsync();
                }

                await worker.DisposeAsync();
                if (random.Next(3) == 0)
                {
                    await store.DisposeAsync();
                    store = DocumentTestStore.InDirectory(path);
                }
            }

            await using (var worker = await store.Subscriptions.OpenAsync("derive"))
            {
                while (worker.Position < sources[^1])
                {
                    var batch = await worker.NextBatchGuardedAsync();
                    await using var session = batch.OpenSession();
                    foreach (var change in batch.Changes)
                    {
                        SubscriptionTestData.Derive(session, change);
                    }

                    await session.SaveChangesAsync();
                }
            }

            var derived = (await SubscriptionTestData.NoteTextsAsync(store)).Where(t => t != "noise").ToList();
            var expected = sources.Select(v => "v" + v).ToList();
            var duplicates = derived.GroupBy(t => t).Where(g => g.Count() > 1).Select(g => g.Key).ToList();
            var missing = expected.Except(derived).ToList();
            Assert.True(duplicates.Count == 0 && missing.Count == 0 && derived.Count == expected.Count,
                $"seed {seed}: derived twice [{string.Join(", ", duplicates)}], missing [{string.Join(", ", missing)}], {derived.Count} derived for {expected.Count} changes");
            output.WriteLine($"{sources.Count} changes, {kills} workers killed before saving");
            await store.DisposeAsync();
        }
        finally
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
