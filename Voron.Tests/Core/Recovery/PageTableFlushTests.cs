using Voron.Paging;

namespace Voron.Tests.Core.Recovery;

public sealed class PageTableFlushTests
{
    /// <summary>
    /// Regression (found by StoreModelTests, seed 809921536): page versions are keyed by a run's
    /// first page, so a page freed while an older image of it still waited for the flusher could
    /// have that stale image written over a newer overflow run allocated across it, and the run
    /// then failed its checksum. Freeing now publishes a tombstone that the flusher skips (PT5).
    /// </summary>
    [Fact]
    public void Flush_never_writes_a_freed_pages_stale_image_over_a_newer_run_that_covers_it()
    {
        using var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        long first = 0;
        using (var tx = env.BeginWrite())
        {
            for (var i = 0; i < 3; i++)
            {
                var page = tx.Low.AllocatePages(1, out var number);
                PageHeader.SetFlags(page, PageFlags.Leaf);
                page[100] = (byte)(i + 1);
                if (i == 0)
                {
                    first = number;
                }
            }

            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            tx.Low.FreePages(first, 1);
            tx.Low.FreePages(first + 1, 1);
            tx.Low.FreePages(first + 2, 1);
            tx.Commit();
        }

        // Freed pages are reusable from the next write transaction on (Allocation/PageAllocator.cs A5).
        long run;
        using (var tx = env.BeginWrite())
        {
            var bytes = tx.Low.AllocatePages(3, out run);
            PageHeader.SetFlags(bytes, PageFlags.Overflow);
            PageHeader.SetOverflowSize(bytes, 3 * Constants.PageSize - PageHeader.Size);
            bytes[Constants.PageSize + 100] = 0xAB; // inside the middle page of the run
            tx.Commit();
        }

        Assert.Equal(first, run); // the allocator reused the three freed pages as one run
        env.FlushToDataFile();

        using var read = env.BeginRead();
        var image = read.Low.GetPage(run); // from the data file: validated against its checksum
        Assert.Equal(3 * Constants.PageSize, image.Length);
        Assert.Equal(0xAB, image[Constants.PageSize + 100]);
    }
}
