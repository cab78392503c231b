using Voron.Paging;

namespace Voron.Tests.Core.Allocation;

public sealed class FlushOverlapTests
{
    /// <summary>
    /// Regression: page B was modified by one transaction, freed by the next, and its number reused
    /// as the second page of an overflow run starting at A = B - 1 by a third. One flush covered all
    /// three: it wrote the run at A, then B's old image (it sorts after A), overwriting the run's
    /// middle, and the next read of A failed its checksum (P4). Freeing now publishes a tombstone
    /// that the flusher skips (Transactions/PageTable.cs PT5).
    /// </summary>
    [Fact]
    public void Flush_keeps_a_run_that_reuses_a_page_freed_after_an_unflushed_change()
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        options.AllocationPolicy = AllocationPolicy.FirstFit; // the run goes to the lowest free pages: A and B
        using var env = StorageEnvironment.Open(options);
        long a, b;
        using (var tx = env.BeginWrite())
        {
            Stamp(tx.Low.AllocatePages(1, out a), PageFlags.Leaf);
            Stamp(tx.Low.AllocatePages(1, out b), PageFlags.Leaf);
            tx.Commit();
        }

        Assert.Equal(a + 1, b);
        env.FlushToDataFile();
        using (var tx = env.BeginWrite())
        {
            tx.Low.ModifyPage(b)[100] = 42; // an unflushed version of B
            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            tx.Low.FreePages(a, 1);
            tx.Low.FreePages(b, 1);
            tx.Commit();
        }

        long run;
        using (var tx = env.BeginWrite())
        {
            var bytes = tx.Low.AllocatePages(2, out run); // releases A and B first, then takes them
            PageHeader.SetFlags(bytes, PageFlags.Overflow);
            PageHeader.SetOverflowSize(bytes, 2 * Constants.PageSize - PageHeader.Size - 10);
            bytes[Constants.PageSize + 100] = 7;
            tx.Commit();
        }

        Assert.Equal(a, run);
        env.FlushToDataFile();

        using var read = env.BeginRead();
        var image = read.Low.GetPage(a); // from the data file, validated
        Assert.Equal(7, image[Constants.PageSize + 100]);
    }

    /// <summary>
    /// The same hazard for the allocator's own pages: a pending-free page is freed straight into
    /// the bitmap when its last entry is released (PageAllocator A2), not through the tree's
    /// FreePages. Its unflushed version must not land on a run that reuses its number.
    /// </summary>
    [Fact]
    public void Flush_keeps_a_run_that_reuses_an_emptied_pending_page()
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        options.AllocationPolicy = AllocationPolicy.FirstFit;
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            for (var i = 1; i <= 6; i++)
            {
                Stamp(tx.Low.AllocatePages(1, out var page), PageFlags.Leaf);
                Assert.Equal(i, page);
            }

            tx.Commit();
        }

        env.FlushToDataFile();
        Free(env, 2); // pending: page 2, in a pending page at the end of the file
        Free(env, 1); // releases page 2 first, so the new pending page listing page 1 is page 2 itself
        Assert.Contains(2L, PendingChain(env));

        long run;
        using (var tx = env.BeginWrite())
        {
            var bytes = tx.Low.AllocatePages(2, out run); // releases page 1 and empties pending page 2: run = 1..2
            PageHeader.SetFlags(bytes, PageFlags.Overflow);
            PageHeader.SetOverflowSize(bytes, 2 * Constants.PageSize - PageHeader.Size - 10);
            bytes[Constants.PageSize + 100] = 7;
            tx.Commit();
        }

        Assert.Equal(1, run);
        env.FlushToDataFile();

        using var read = env.BeginRead();
        Assert.Equal(7, read.Low.GetPage(1)[Constants.PageSize + 100]);
    }

    private static void Free(StorageEnvironment env, long page)
    {
        using var tx = env.BeginWrite();
        tx.Low.FreePages(page, 1);
        tx.Commit();
    }

    private static List<long> PendingChain(StorageEnvironment env)
    {
        using var tx = env.BeginWrite();
        return tx.Low.Allocator.StructurePages();
    }

    private static void Stamp(Span<byte> page, PageFlags flags) => PageHeader.SetFlags(page, flags);
}
