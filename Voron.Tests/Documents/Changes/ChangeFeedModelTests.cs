namespace Voron.Tests.Documents.Changes;

/// <summary>
/// Model-based test of the change feed (CF1, CF3): random sessions (stores, updates, deletes, over
/// several collections, some sessions with several documents) against a model log; after each
/// phase, feeds started at random positions with random collection filters yield exactly the
/// model's changes after them, in order; phases end with a clean reopen or a crash-like reopen
/// (no final flush: recovery from the journal). Fixed seeds.
/// </summary>
public sealed class ChangeFeedModelTests
{
    private static readonly string[] Collections = ["red", "green", "blue"];

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Feeds_from_random_positions_match_the_model_across_reopens_and_recoveries(int seed)
    {
        var random = new Random(seed);
        using var fileSystem = new InMemoryFileSystem(reservePerFile: 4L << 30);
        var log = new List<(long Version, string Id, string Collection, DocumentChangeKind Kind)>();
        var live = new Dictionary<string, (string Collection, long Version)>(StringComparer.Ordinal);
        var environment = Open(fileSystem);
        var store = DocumentStore.Open(environment);
        try
        {
            for (var phase = 0; phase < 6; phase++)
            {
                var context = $"seed {seed}, phase {phase}";
                for (var s = 0; s < 40; s++)
                {
                    await SessionAsync(store, random, log, live);
                }

                for (var f = 0; f < 5; f++)
                {
                    await CheckFeedAsync(store, random, log, context);
                }

                store.Dispose();
                if (phase % 2 == 0)
                {
                    environment.Dispose();
                }
                else
                {
                    environment.CloseWithoutFlush(); // the process dies: recovery from the journal on open
                }

                environment = Open(fileSystem);
                store = DocumentStore.Open(environment);
                store.CheckIntegrity();
                await CheckFeedAsync(store, random, log, context + " after reopen");
            }
        }
        finally
        {
            store.Dispose();
            environment.Dispose();
        }
    }

    private static StorageEnvironment Open(InMemoryFileSystem fileSystem)
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/feed-model", fileSystem);
        options.JournalFileSize = 1 << 20;
        return StorageEnvironment.Open(options);
    }

    /// <summary>One session of 1..4 distinct ids: stores (new or updates) and deletes; the model takes each change's version in the order the batch assigns them.</summary>
    private static async Task SessionAsync(DocumentStore store, Random random, List<(long, string, string, DocumentChangeKind)> log, Dictionary<string, (string Collection, long Version)> live)
    {
        var count = random.Next(4) == 0 ? random.Next(2, 5) : 1;
        var ids = new HashSet<string>(StringComparer.Ordinal);
        var planned = new List<(string Id, string? Collection)>(); // null collection: delete
        while (planned.Count < count)
        {
            var id = $"doc/{random.Next(60)}";
            if (!ids.Add(id))
            {
                continue;
            }

            if (live.TryGetValue(id, out var stored) && random.Next(3) == 0)
            {
                planned.Add((id, null));
            }
            else
            {
                planned.Add((id, live.TryGetValue(id, out var existing) ? existing.Collection : Collections[random.Next(Collections.Length)]));
            }
        }

        await using var session = store.OpenSession();
        foreach (var (id, collection) in planned)
        {
            if (collection == null)
            {
                session.Delete(id);
            }
            else
            {
                session.StoreRaw(collection, id, Encoding.UTF8.GetBytes($$"""{"r":{{random.Next()}}}"""));
            }
        }

        await session.SaveChangesAsync();

        // The batch numbers its writes in the order the session hands them over; read that order
        // back from the feed's tail rather than assume it, then check it is exactly the planned set.
        var last = log.Count == 0 ? 0 : log[^1].Item1;
        var tail = await FeedReader.TakeAsync(store, last, planned.Count);
        Assert.Equal(planned.Select(p => p.Id).Order(StringComparer.Ordinal), tail.Select(t => t.Id).Order(StringComparer.Ordinal));
        foreach (var change in tail)
        {
            var plan = planned.Single(p => p.Id == change.Id);
            var kind = plan.Collection == null ? DocumentChangeKind.Deleted : DocumentChangeKind.Stored;
            var collection = plan.Collection ?? live[change.Id].Collection;
            Assert.Equal(kind, change.Kind);
            Assert.Equal(collection, change.Collection);
            log.Add((change.Version, change.Id, collection, kind));
            if (kind == DocumentChangeKind.Deleted)
            {
                live.Remove(change.Id);
            }
            else
            {
                live[change.Id] = (collection, change.Version);
            }
        }

        Assert.Equal(Enumerable.Range(1, log.Count).Select(v => (long)v), log.Select(l => l.Item1)); // no version is skipped: every write is logged
    }

    private static async Task CheckFeedAsync(DocumentStore store, Random random, List<(long Version, string Id, string Collection, DocumentChangeKind Kind)> log, string context)
    {
        var since = log.Count == 0 ? 0 : random.Next(0, log.Count + 1);
        var collection = random.Next(2) == 0 ? null : Collections[random.Next(Collections.Length)];
        var expected = log.Where(l => l.Version > since && (collection == null || l.Collection == collection)).ToList();
        var actual = await FeedReader.TakeAsync(store, since, expected.Count, collection);
        Assert.True(expected.SequenceEqual(actual.Select(c => (c.Version, c.Id, c.Collection, c.Kind))),
            $"{context}: feed after {since} ({collection ?? "all"}) yields {actual.Count} changes, not the model's {expected.Count}");

        // Nothing else: the next change the feed yields is a new write's.
        var marker = $"marker/{log.Count + 1}";
        var drained = await FeedReader.DrainAsync(store, expected.Count == 0 ? since : Math.Max(since, expected[^1].Version), collection, marker);
        Assert.True(drained.Count == 0, $"{context}: the feed yields changes the model does not have: {string.Join(", ", drained.Select(d => d.Version))}");
        log.Add((log.Count + 1, marker, "markers", DocumentChangeKind.Stored)); // the drain's marker took the next version
    }
}
