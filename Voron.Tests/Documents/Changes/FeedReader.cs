namespace Voron.Tests.Documents.Changes;

/// <summary>Helpers for reading a change feed in tests: a hang guard, never a timing assertion.</summary>
internal static class FeedReader
{
    public static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(5);

    /// <summary>The next <paramref name="count"/> changes of a feed (history, then live).</summary>
    public static async Task<List<DocumentChange>> TakeAsync(DocumentStore store, long since, int count, string? collection = null, bool includeJson = false)
    {
        using var guard = new CancellationTokenSource(HangGuard);
        var taken = new List<DocumentChange>(count);
        if (count == 0)
        {
            return taken;
        }

        await foreach (var change in store.Changes(since, collection, includeJson, guard.Token))
        {
            taken.Add(change);
            if (taken.Count == count)
            {
                break;
            }
        }

        return taken;
    }

    /// <summary>Everything the feed holds after <paramref name="since"/> now: reads until a marker document it writes arrives (a live wait ends deterministically).</summary>
    public static async Task<List<DocumentChange>> DrainAsync(DocumentStore store, long since, string? collection = null, string? marker = null)
    {
        marker ??= $"marker/{Guid.NewGuid():N}";
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("markers", marker, "{}"u8);
            await session.SaveChangesAsync();
        }

        using var guard = new CancellationTokenSource(HangGuard);
        var taken = new List<DocumentChange>();
        await foreach (var change in store.Changes(since, null, false, guard.Token))
        {
            if (change.Id == marker)
            {
                break;
            }

            if (collection == null || change.Collection == collection)
            {
                taken.Add(change);
            }
        }

        return taken;
    }

    /// <summary>
    /// <see cref="SubscriptionWorker.NextBatchAsync"/> under the hang guard: a batch that never
    /// comes (NextBatchAsync waits for a commit when there is nothing to read) fails the test,
    /// naming the worker's position, instead of hanging the run.
    /// </summary>
    public static async Task<SubscriptionBatch> NextBatchGuardedAsync(this SubscriptionWorker worker)
    {
        using var guard = new CancellationTokenSource(HangGuard);
        try
        {
            return await worker.NextBatchAsync(guard.Token);
        }
        catch (OperationCanceledException) when (guard.IsCancellationRequested)
        {
            throw new TimeoutException($"Subscription '{worker.Name}' got no batch after position {worker.Position} within {HangGuard}: nothing was left to read.");
        }
    }
}
