using Voron.Allocation;

namespace Voron.Tests.Core.Allocation;

public sealed class IntegrityCheckTests
{
    private static StorageEnvironment OpenWithTree()
    {
        var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        for (var i = 0; i < 500; i++)
        {
            tree.Put(System.Text.Encoding.ASCII.GetBytes($"key-{i:D5}"), new byte[300]);
        }

        tx.Commit();
        return env;
    }

    [Fact]
    public void CheckIntegrity_accounts_for_trees_structures_pending_and_free_pages()
    {
        using var env = OpenWithTree();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 400; i++)
            {
                tree.Delete(System.Text.Encoding.ASCII.GetBytes($"key-{i:D5}"));
            }

            tx.Commit();
        }

        var report = env.CheckIntegrity();

        Assert.True(report.PendingFreePages > 0, report.ToString());
        Assert.True(report.FreeSpaceStructurePages >= 2, report.ToString()); // the directory and a pending page; bitmaps come with the first release
        Assert.Equal(report.Pages - 1, report.TreePages + report.FreeSpaceStructurePages + report.FreePages); // page 0 is the identity page
    }

    [Fact]
    public void CheckIntegrity_reports_a_tree_page_that_is_also_pending_free()
    {
        using var env = OpenWithTree();
        long page;
        using (var tx = env.BeginWrite())
        {
            page = tx.Low.OpenTree("t")!.State.RootPage;
            tx.Low.Allocator.Free(page, 1); // a bug: freed, but the tree still uses it
            tx.Commit();
        }

        var error = Assert.Throws<InvalidOperationException>(() => env.CheckIntegrity());

        Assert.Contains($"page {page} is owned twice", error.Message);
        Assert.Contains("pending-free", error.Message);
    }

    [Fact]
    public void CheckIntegrity_reports_a_tree_page_that_is_also_free()
    {
        using var env = OpenWithTree();
        long page;
        using (var tx = env.BeginWrite())
        {
            page = tx.Low.OpenTree("t")!.State.RootPage;
            tx.Low.Allocator.Free(page, 1);
            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            tx.Low.Allocator.Free(tx.Low.Allocator.Allocate(1), 1); // releases the pending page into the bitmap
            tx.Commit();
        }

        var error = Assert.Throws<InvalidOperationException>(() => env.CheckIntegrity());

        Assert.Contains($"page {page} is owned twice", error.Message);
        Assert.Contains("free space", error.Message);
    }

    [Fact]
    public void CheckIntegrity_reports_a_section_count_that_disagrees_with_its_bitmap()
    {
        using var env = OpenWithTree();
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("big"u8, new byte[50_000]);
            tx.CreateTree("t").Put("big"u8, new byte[1]); // a free run, so a bitmap page exists
            var bitmap = tx.Low.Allocator.ToSummary().BitmapPages[0];
            var page = tx.Low.ModifyPage(bitmap);
            FreeSpaceFormat.SetSectionCount(page, 0, FreeSpaceFormat.SectionCount(page, 0) + 1);
            tx.Commit();
        }

        var error = Assert.Throws<CorruptionException>(() => env.CheckIntegrity());

        Assert.Contains("FS4", error.Reason);
    }
}
