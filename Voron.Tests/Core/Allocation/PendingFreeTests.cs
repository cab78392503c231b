namespace Voron.Tests.Core.Allocation;

public sealed class PendingFreeTests
{
    private static readonly byte[] Value = new byte[1000];

    private static byte[] Key(int i) => System.Text.Encoding.ASCII.GetBytes($"key-{i:D6}");

    private static void Fill(StorageEnvironment env, string tree, int count)
    {
        using var tx = env.BeginWrite();
        var t = tx.CreateTree(tree);
        for (var i = 0; i < count; i++)
        {
            t.Put(Key(i), Value);
        }

        tx.Commit();
    }

    private static void DeleteTree(StorageEnvironment env, string tree)
    {
        using var tx = env.BeginWrite();
        Assert.True(tx.DeleteTree(tree));
        tx.Commit();
    }

    private static HashSet<long> PendingPages(StorageEnvironment env)
    {
        using var tx = env.BeginWrite();
        return tx.Low.Allocator.PendingRuns().SelectMany(r => Enumerable.Range(0, r.PageCount).Select(i => r.FirstPage + i)).ToHashSet();
    }

    [Fact]
    public void Pages_freed_while_an_older_reader_is_live_are_reused_only_after_it_ends()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        Fill(env, "doomed", 300);
        var reader = env.BeginRead(); // sees "doomed"
        DeleteTree(env, "doomed");
        var freed = PendingPages(env);
        Assert.True(freed.Count >= 30, $"{freed.Count} pages pending");

        Fill(env, "other", 300); // allocates while the reader lives: must not touch the pending pages
        var whileReading = env.CheckIntegrity();
        Assert.Equal(freed.Count, whileReading.PendingFreePages);
        Assert.Equal(freed, PendingPages(env));
        Assert.Equal(300, reader.OpenTree("doomed")!.Count);
        Assert.Equal(Value, reader.OpenTree("doomed")!.Get(Key(123)));

        reader.Dispose();
        var before = env.CheckIntegrity();
        Fill(env, "third", 300); // the first allocation releases the pending pages, then reuses them

        var after = env.CheckIntegrity();
        Assert.Equal(0, after.PendingFreePages);
        Assert.True(after.Pages - before.Pages < freed.Count / 2,
            $"the file grew by {after.Pages - before.Pages} pages although {freed.Count} were released");
    }

    [Fact]
    public void A_reader_that_began_after_the_free_does_not_hold_the_pages_back()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        Fill(env, "doomed", 300);
        DeleteTree(env, "doomed");
        using var reader = env.BeginRead(); // its snapshot no longer reaches the freed pages

        Fill(env, "other", 10);

        Assert.Equal(0, env.CheckIntegrity().PendingFreePages);
    }

    [Fact]
    public void Pending_frees_survive_a_crash_and_are_released_after_recovery()
    {
        using var fs = StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        Fill(env, "doomed", 300);
        DeleteTree(env, "doomed");
        var pending = env.CheckIntegrity().PendingFreePages;
        env.CloseWithoutFlush();

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        Assert.Equal(pending, reopened.CheckIntegrity().PendingFreePages);
        Fill(reopened, "other", 10);
        var report = reopened.CheckIntegrity();
        Assert.Equal(0, report.PendingFreePages);
        Assert.True(report.ReusablePages >= pending - 10, $"{report.ReusablePages} reusable after releasing {pending}");
    }

    [Fact]
    public void A_run_freed_by_the_transaction_that_allocated_it_is_free_at_once()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(Key(1), new byte[40_000]); // a five-page overflow run
            tree.Put(Key(1), new byte[10]); // replaces it: the run was never visible to anyone
            tx.Commit();
        }

        var report = env.CheckIntegrity();
        Assert.Equal(0, report.PendingFreePages);
        Assert.True(report.ReusablePages >= 5, $"{report.ReusablePages} reusable pages");
    }

    [Fact]
    public void A_transaction_that_allocates_nothing_writes_no_free_space_page()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        Fill(env, "t", 1);
        Fill(env, "doomed", 300);
        DeleteTree(env, "doomed"); // pending pages a later allocation would release

        using var tx = env.BeginWrite();
        var value = new byte[1000];
        value[0] = 1;
        tx.CreateTree("t").Put(Key(0), value); // rewrites one leaf in place, allocates nothing
        Assert.Equal(1, tx.Low.DirtyPageCount);
    }
}
