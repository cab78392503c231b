using Voron.Backup;
using Voron.Compaction;
using Voron.Header;
using Voron.Trees;

namespace Voron.Tests.Core.Compaction;

public sealed class CompactingCopyTests(ITestOutputHelper output)
{
    private const string CopyDirectory = "/copy";

    private static StorageEnvironmentOptions CopyOptions(IFileSystem fileSystem)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(CopyDirectory, fileSystem);
        options.BackgroundFlush = false;
        options.MaxDataFileSize = 4L << 30;
        return options;
    }

    private static long DataFileBytes(Voron.Platform.Memory.InMemoryFileSystem fileSystem, string directory)
    {
        using var file = fileSystem.Open(new StoreLayout(directory).DataFile, FileOpenMode.OpenExisting);
        return file.Length;
    }

    [Fact]
    public void Write_copies_every_tree_and_page_file_into_a_smaller_store_that_passes_the_integrity_check()
    {
        using var fileSystem = StoreFactory.NewFileSystem();
        List<string> expected;
        long pages;
        var progress = new List<BackupProgress>();
        ulong sourceId;
        long lastTransaction;
        long written;
        using (var source = StorageEnvironment.Open(StoreFactory.Options(fileSystem)))
        {
            CompactionStores.Fill(source, seed: 7, scale: 4);
            expected = StoreContent.Of(source);
            lastTransaction = source.LastCommittedTransactionId;
            sourceId = HeaderFile.ReadNewest(fileSystem, source.Layout)!.Value.StoreId;
            using var read = source.BeginRead();
            var meter = new CopyMeter(new SynchronousProgress(progress.Add), null, default);
            pages = CompactingCopy.Write(read, fileSystem, CopyDirectory, meter);
            written = meter.BytesWritten;
        }

        using var copy = StorageEnvironment.Open(CopyOptions(fileSystem));
        Assert.Equal(expected, StoreContent.Of(copy));
        Assert.Equal(lastTransaction, copy.LastCommittedTransactionId); // CP5
        copy.CheckIntegrity();
        Assert.NotEqual(sourceId, HeaderFile.ReadNewest(fileSystem, copy.Layout)!.Value.StoreId);
        var before = DataFileBytes(fileSystem, "/store");
        var after = DataFileBytes(fileSystem, CopyDirectory);
        output.WriteLine($"data file {before:N0} -> {after:N0} bytes ({pages} pages)");
        Assert.Equal(pages * Constants.PageSize, after);
        Assert.True(after < before, $"the copy ({after:N0} bytes) is not smaller than the churned source ({before:N0})");
        Assert.Contains(progress, p => p.Phase == "copy");
        Assert.True(written >= expected.Count, $"the meter counted {written} bytes"); // reported at least one byte per entry
    }

    [Fact]
    public void Write_fills_the_leaves_of_a_tree_loaded_in_random_order()
    {
        // In key order, every append lands at the right edge and a split there keeps the left
        // page full (Trees/BTree.Split.cs): the copy's leaves are full, random order's are not.
        const int Entries = 20_000;
        const int ValueSize = 40;
        using var fileSystem = StoreFactory.NewFileSystem();
        TreeState random;
        using (var source = StorageEnvironment.Open(StoreFactory.Options(fileSystem)))
        {
            var rng = new Random(3);
            using (var write = source.BeginWrite())
            {
                var tree = write.CreateTree("random");
                foreach (var i in Enumerable.Range(0, Entries).OrderBy(_ => rng.Next()))
                {
                    tree.Put(CompactionStores.Key(i), CompactionStores.Bytes(rng, ValueSize));
                }

                write.Commit();
            }

            using var read = source.BeginRead();
            random = read.OpenTree("random")!.Inner.State;
            CompactingCopy.Write(read, fileSystem, CopyDirectory, new CopyMeter(null, null, default));
        }

        using var copy = StorageEnvironment.Open(CopyOptions(fileSystem));
        using var copied = copy.BeginRead();
        var dense = copied.OpenTree("random")!.Inner.State;
        var nodeBytes = (double)Entries * (TreePageEditor.LeafNodeSize(CompactionStores.Key(0).Length, ValueSize) + TreePage.SlotSize);
        var fillBefore = nodeBytes / (random.LeafPages * TreePage.Capacity);
        var fillAfter = nodeBytes / (dense.LeafPages * TreePage.Capacity);
        output.WriteLine($"leaf pages {random.LeafPages} -> {dense.LeafPages}; fill {fillBefore:P1} -> {fillAfter:P1}; branch pages {random.BranchPages} -> {dense.BranchPages}");
        Assert.True(fillAfter >= 0.95, $"leaf fill after the copy is {fillAfter:P1}");
        Assert.True(dense.LeafPages < random.LeafPages);
    }

    [Fact]
    public void Write_refuses_a_destination_that_holds_files()
    {
        using var fileSystem = StoreFactory.NewFileSystem();
        using (var file = fileSystem.Open("/copy/something", FileOpenMode.CreateNew))
        {
            file.Write(0, new byte[1]);
        }

        using var source = StorageEnvironment.Open(StoreFactory.Options(fileSystem));
        using var read = source.BeginRead();
        Assert.Throws<IOException>(() => CompactingCopy.Write(read, fileSystem, CopyDirectory, new CopyMeter(null, null, default)));
    }

    [Fact]
    public void Write_stops_at_cancellation()
    {
        using var fileSystem = StoreFactory.NewFileSystem();
        using var source = StorageEnvironment.Open(StoreFactory.Options(fileSystem));
        CompactionStores.Fill(source, seed: 1);
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        using var read = source.BeginRead();
        Assert.ThrowsAny<OperationCanceledException>(() => CompactingCopy.Write(read, fileSystem, CopyDirectory, new CopyMeter(null, null, cancelled.Token)));
    }
}
