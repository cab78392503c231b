using Voron.Flushing;
using Voron.Header;
using Voron.Transactions;

namespace Voron.Tests.Core.Flushing;

/// <summary>
/// IP1 (Transactions/InPlacePages.cs): the flusher's answer to "does a queued record name a page
/// of this run?" (DataFileFlusher.Untouched). A commit of single pages, none written in place,
/// names its pages without an array of runs (UnflushedTransaction.NamedSinglePages); the answers
/// must be those an explicit array of runs gives.
/// </summary>
public sealed class UntouchedRunsTests(ITestOutputHelper output)
{
    [Fact]
    public void A_commit_of_single_pages_is_queued_without_an_array_of_runs()
    {
        // Regression: ForFlush built a PageRun[] for every commit (16 bytes a page), though the
        // keys it queues already say which pages a commit of single pages names.
        var pages = new List<KeyValuePair<long, byte[]>> { new(3, new byte[Constants.PageSize]), new(9, new byte[Constants.PageSize]) };
        var prepared = new PreparedCommit(5, default, null!, pages, pages.ToDictionary(), [], freedPages: [20]);
        var queued = prepared.ForFlush(default);
        Assert.Null(queued.Runs);
        Assert.Equal(2, queued.NamedSinglePages);
        Assert.Equal(new long[] { 3, 9, 20 }, queued.Pages);

        pages.Add(new(12, new byte[2 * Constants.PageSize]));
        queued = new PreparedCommit(6, default, null!, pages, pages.ToDictionary(), [], freedPages: []).ForFlush(default);
        Assert.Equal(new[] { new PageRun(3, 1), new PageRun(9, 1), new PageRun(12, 2) }, queued.Runs);
        Assert.Equal(0, queued.NamedSinglePages);
    }

    [Fact]
    public void Untouched_answers_alike_for_single_pages_named_by_count_and_by_runs()
    {
        var seed = TestSeed.Next(output, nameof(Untouched_answers_alike_for_single_pages_named_by_count_and_by_runs));
        var random = new Random(seed);
        using var fs = Engine.StoreFactory.NewFileSystem();
        using var byCount = NewFlusher(fs);
        using var byRuns = NewFlusher(fs);
        for (var round = 0; round < 300; round++)
        {
            var named = Enumerable.Range(0, random.Next(0, 12)).Select(_ => (long)random.Next(1, 400)).Distinct().Order().ToArray();
            long[] freed = [.. Enumerable.Range(0, random.Next(0, 3)).Select(_ => (long)random.Next(1, 400)).Except(named)];
            long[] keys = [.. named, .. freed];
            var multi = random.Next(4) == 0 && named.Length > 0;
            PageRun[] runs = [.. named.Select((p, i) => new PageRun(p, multi && i == 0 ? random.Next(2, 5) : 1))];
            byRuns.Enqueue(new UnflushedTransaction(round, keys, 0, default, default) { Runs = runs });
            byCount.Enqueue(multi
                ? new UnflushedTransaction(round, keys, 0, default, default) { Runs = runs }
                : new UnflushedTransaction(round, keys, 0, default, default) { NamedSinglePages = named.Length, Runs = named.Length == 0 ? [] : null });

            PageRun[] candidates = [.. Enumerable.Range(0, random.Next(1, 20)).Select(_ => new PageRun(random.Next(1, 420), random.Next(1, 4)))];
            Assert.True(byRuns.Untouched(candidates).SequenceEqual(byCount.Untouched(candidates)), $"seed {seed} round {round}: the answers differ");
        }
    }

    /// <summary>A flusher whose queue is all this test uses (no background flush, no files).</summary>
    private static DataFileFlusher NewFlusher(InMemoryFileSystem fs)
    {
        var seams = new FlusherSeams
        {
            Journal = null!, PageTable = null!, Pager = null!, WriteHeader = _ => { }, Failures = null!, PinFlushHorizon = () => 0, UnpinFlushHorizon = () => { },
            CaptureRetention = () => default, RetireGeneration = () => 0, OldestSnapshotPin = () => null, IsDisposed = () => false,
            Disposed = () => new ObjectDisposedException("test"), Path = "test",
        };
        return new DataFileFlusher(seams, default, Engine.StoreFactory.Options(fs));
    }
}
