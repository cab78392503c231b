using Voron.Allocation;
using Voron.Paging;
using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Tests.Core.Allocation;

public sealed class FreeSpaceFormatTests
{
    private const string DataFile = "/store/voron.data";

    [Fact]
    public void Layout_offsets_follow_the_format_block_and_fill_the_pages()
    {
        Assert.Equal(2, FreeSpaceFormat.Version);
        Assert.Equal(512, PagesPerSection);
        Assert.Equal(4 << 20, PagesPerSection * Constants.PageSize);
        Assert.Equal(PageHeader.Size, KindOffset);
        Assert.Equal([68, 72, 76, 80, 88, 96], new[] { VersionOffset, BitmapCountOffset, PendingPagesOffset, PendingHeadOffset, PendingTailOffset, ListOffset });
        Assert.Equal(1012, MaxBitmapPages);
        Assert.True(ListOffset + 8 * MaxBitmapPages <= Constants.PageSize);

        Assert.Equal(123, SectionsPerBitmap);
        Assert.Equal(62_976, PagesPerBitmap);
        Assert.Equal(318, CountsReservedOffset);
        Assert.Equal(Constants.PageSize, BitsOffset + SectionBytes * SectionsPerBitmap);

        Assert.Equal(80, EntriesOffset);
        Assert.Equal(338, MaxPendingEntries);
        Assert.True(EntriesOffset + EntrySize * MaxPendingEntries <= Constants.PageSize);
    }

    [Fact]
    public void Open_reads_back_the_free_space_it_wrote()
    {
        var (fs, layout) = CreateStore();

        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));

        Assert.Equal(layout.FreePages, env.Committed.FreeSpace.FreePages);
        Assert.Equal(layout.PendingPages, env.Committed.FreeSpace.PendingPages);
        Assert.Equal(layout.Bitmaps, env.Committed.FreeSpace.BitmapPages);
        env.CheckIntegrity();
    }

    [Fact]
    public void Open_rejects_a_section_count_that_disagrees_with_its_bits()
    {
        var (fs, layout) = CreateStore();
        Patch(fs, layout.Bitmaps[0], page => SetSectionCount(page, 0, SectionCount(page, 0) + 1));

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(DataFile, error.File);
        Assert.Equal(layout.Bitmaps[0] * Constants.PageSize, error.Offset);
        Assert.Contains("FS4", error.Reason);
    }

    [Fact]
    public void Open_rejects_a_free_bit_at_or_above_the_end_of_allocation()
    {
        var (fs, layout) = CreateStore();
        var page = layout.NextPageNumber + 3; // beyond allocation, still in bitmap 0
        Patch(fs, layout.Bitmaps[0], bitmap =>
        {
            var j = (int)(page / PagesPerSection);
            var bit = (int)(page % PagesPerSection);
            bitmap[BitsOffset + SectionBytes * j + bit / 8] |= (byte)(1 << (bit % 8));
            SetSectionCount(bitmap, j, SectionCount(bitmap, j) + 1); // keeps FS4, breaks FS5
        });

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(layout.Bitmaps[0] * Constants.PageSize, error.Offset);
        Assert.Contains("FS5", error.Reason);
    }

    [Fact]
    public void Open_rejects_a_pending_entry_outside_the_file()
    {
        var (fs, layout) = CreateStore();
        Patch(fs, layout.PendingHead, page => WriteEntry(page, 0, ReadEntry(page, 0) with { FirstPage = layout.NextPageNumber }));

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(layout.PendingHead * Constants.PageSize, error.Offset);
        Assert.Contains("FS7", error.Reason);
    }

    [Fact]
    public void Open_rejects_a_pending_chain_longer_than_the_directory_says()
    {
        var (fs, layout) = CreateStore();
        Patch(fs, layout.Directory, page => WriteInt32(page, PendingPagesOffset, ReadInt32(page, PendingPagesOffset) + 1));

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Contains("FS6", error.Reason);
    }

    /// <summary>
    /// Regression: the pending chain's walk was bounded only by the directory's page count, an
    /// on-disk int, so a page linking to itself with a count near 2^31 looped for hours at open.
    /// The count is now bounded by the pages allocated and a page seen twice is a cycle.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Open_rejects_a_pending_chain_that_cycles_or_claims_more_pages_than_the_store_has(bool hugeCount)
    {
        var (fs, layout) = CreateStore();
        Patch(fs, layout.PendingHead, page => WriteInt64(page, NextOffset, layout.PendingHead));
        Patch(fs, layout.Directory, page => WriteInt32(page, PendingPagesOffset, hugeCount ? int.MaxValue : (int)layout.NextPageNumber));

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Contains("FS6", error.Reason);
        Assert.Contains(hugeCount ? "more than the" : "cycle", error.Reason);
    }

    [Fact]
    public void Open_rejects_a_directory_page_of_the_wrong_kind()
    {
        var (fs, layout) = CreateStore();
        Patch(fs, layout.Directory, page => WriteInt32(page, KindOffset, BitmapKind));

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(layout.Directory * Constants.PageSize, error.Offset);
        Assert.Contains("FS1", error.Reason);
    }

    [Theory]
    [InlineData(V1DirectoryKind, 0, 1)] // a store written by free-space format version 1
    [InlineData(DirectoryKind, 3, 3)] // a later version
    public void Open_refuses_another_free_space_format_version(int kind, int version, int found)
    {
        var (fs, layout) = CreateStore();
        Patch(fs, layout.Directory, page =>
        {
            WriteInt32(page, KindOffset, kind);
            WriteInt32(page, VersionOffset, version);
        });

        var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(found, error.Found);
        Assert.Equal(FreeSpaceFormat.Version, error.Supported);
    }

    private sealed record Layout(long Directory, long[] Bitmaps, long PendingHead, long NextPageNumber, long FreePages, long PendingPages);

    /// <summary>A store (flushed and closed) with free pages in its bitmap and pending pages in its chain.</summary>
    private static (InMemoryFileSystem Fs, Layout Layout) CreateStore()
    {
        var fs = StoreFactory.NewFileSystem();
        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        foreach (var name in new[] { "a", "b" })
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree(name);
            for (var i = 0; i < 200; i++)
            {
                tree.Put(System.Text.Encoding.ASCII.GetBytes($"{name}-{i:D5}"), new byte[900]);
            }

            tx.Commit();
        }

        foreach (var name in new[] { "a", "b" })
        {
            using var tx = env.BeginWrite();
            tx.DeleteTree(name); // "a"'s pages are released into the bitmap by the second delete; "b"'s stay pending
            tx.Commit();
        }

        env.FlushToDataFile();
        using var read = env.BeginWrite();
        var state = env.Committed;
        var directory = read.Low.GetPage(state.State.FreeSpaceRoot);
        var layout = new Layout(state.State.FreeSpaceRoot, state.FreeSpace.BitmapPages, ReadInt64(directory, PendingHeadOffset),
            state.State.NextPageNumber, state.FreeSpace.FreePages, state.FreeSpace.PendingPages);
        Assert.True(layout.FreePages > 0 && layout.PendingPages > 0 && layout.PendingHead > 0, $"test setup: {layout}");
        return (fs, layout);
    }

    /// <summary>Changes one page of the data file and restamps its checksum, as a bug (not a torn write) would.</summary>
    private static void Patch(InMemoryFileSystem fs, long pageNumber, Action<byte[]> change)
    {
        using var file = fs.Open(DataFile, FileOpenMode.OpenExisting);
        var page = new byte[Constants.PageSize];
        Assert.Equal(page.Length, file.Read(pageNumber * Constants.PageSize, page));
        change(page);
        PageHeader.StampChecksum(page);
        file.Write(pageNumber * Constants.PageSize, page);
    }
}
