using Voron.Paging;
using Voron.Tests.Engine;

namespace Voron.Tests.Allocation;

public sealed class FlushOverlapTests
{
    /// <summary>
    /// Regression: page B was modified by one transaction, freed by the next, and its number reused
    /// as the second page of an overflow run starting at A = B - 1 by a third. One flush covered all
    /// three: it wrote the run at A, then B's old image (it sorts after A), overwriting the run's
    /// middle, and the next read of A failed its checksum (P4). The flusher now drops an image
    /// that a newer run of the same batch covers (DataFileFlusher FL4).
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

    private static void Stamp(Span<byte> page, PageFlags flags) => PageHeader.SetFlags(page, flags);
}
