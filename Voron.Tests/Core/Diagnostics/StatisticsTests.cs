using Voron.Diagnostics;
using Voron.Paging;

namespace Voron.Tests.Core.Diagnostics;

public sealed class StatisticsTests
{
    private static StorageEnvironment Open(Action<StorageEnvironmentOptions>? tune = null)
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        tune?.Invoke(options);
        return StorageEnvironment.Open(options);
    }

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key-{i:D8}");

    private static void Load(StorageEnvironment env, string tree, IEnumerable<int> keys, int valueSize, Random? random = null)
    {
        using var tx = env.BeginWrite();
        var t = tx.CreateTree(tree);
        var value = new byte[valueSize];
        foreach (var i in keys)
        {
            random?.NextBytes(value); // incompressible, where the journal's size matters
            t.Put(Key(i), value);
        }

        tx.Commit();
    }

    private static TreeStatistics Tree(StoreStatistics statistics, string name) => Assert.Single(statistics.Trees, t => t.Name == name);

    [Fact]
    public void GetStatistics_counts_agree_with_CheckIntegrity_and_with_what_was_stored()
    {
        using var env = Open();
        Load(env, "small", Enumerable.Range(0, 3000), 40);
        Load(env, "large", Enumerable.Range(0, 12), 10_000); // overflow runs
        using (var tx = env.BeginWrite())
        {
            tx.CreatePageFile("blob").Write(3 * PageFile.BlockSize, new byte[100]); // one block; blocks 0-2 are holes
            tx.CreatePageFile("blob").Write(0, new byte[2 * PageFile.BlockSize]);   // blocks 0 and 1
            var small = tx.CreateTree("small");
            for (var i = 0; i < 1500; i++)
            {
                small.Delete(Key(i)); // frees pages: pending until a later write transaction releases them
            }

            tx.Commit();
        }

        var statistics = env.GetStatistics();
        var report = env.CheckIntegrity();

        Assert.Equal(report.TransactionId, statistics.TransactionId);
        Assert.Equal(report.Pages, statistics.AllocatedPages);
        Assert.Equal(report.FreePages, statistics.FreePages);
        Assert.Equal(report.PendingFreePages, statistics.PendingFreePages);
        Assert.True(statistics.PendingFreePages > 0, statistics.ToString());
        Assert.Equal(report.TreePages, statistics.Trees.Sum(t => t.LeafPages + t.BranchPages + t.OverflowPages + t.RawPages));
        Assert.Equal(report.Pages - 1, statistics.Trees.Sum(t => t.LeafPages + t.BranchPages + t.OverflowPages + t.RawPages) +
            report.FreeSpaceStructurePages + statistics.FreePages); // page 0 is the identity page
        Assert.Equal(report.Entries, statistics.Trees.Where(t => t.Name != StatisticsCollector.RootTreeName).Sum(t => t.Entries));

        Assert.Equal(StatisticsCollector.RootTreeName, statistics.Trees[0].Name);
        Assert.Equal(3, statistics.Trees[0].Entries); // the catalog lists the three named trees
        Assert.Equal(1500, Tree(statistics, "small").Entries);
        Assert.Equal(12, Tree(statistics, "large").Entries);
        Assert.Equal(0, Tree(statistics, "small").OverflowPages);
        Assert.Equal(12 * PageHeader.OverflowPageCount(10_000), Tree(statistics, "large").OverflowPages);
        var blob = Tree(statistics, "$pagefile/blob");
        Assert.Equal(3, blob.RawPages);
        Assert.Equal(4, blob.Entries); // the metadata entry and three blocks
        Assert.All(statistics.Trees.Where(t => !t.Name.StartsWith("$pagefile/", StringComparison.Ordinal)), t => Assert.Equal(0, t.RawPages));

        // The sections cover the allocated pages and hold the free pages, pending ones included.
        Assert.Equal(statistics.AllocatedPages, statistics.Sections.Sum(s => (long)s.Pages));
        Assert.Equal(statistics.FreePages, statistics.Sections.Sum(s => (long)s.FreePages));
        Assert.Equal(Enumerable.Range(0, statistics.Sections.Count).Select(i => (long)i), statistics.Sections.Select(s => s.Index));
        Assert.True(statistics.DataFileBytes >= statistics.AllocatedPages * Constants.PageSize, statistics.ToString());

        // The tree states say the same as the pages (BT5).
        using var read = env.BeginRead();
        foreach (var name in read.GetTreeNames())
        {
            var state = read.Low.OpenTree(name)!.State;
            var tree = Tree(statistics, name);
            Assert.Equal((state.EntryCount, state.Depth, state.LeafPages, state.BranchPages, state.OverflowPages),
                (tree.Entries, tree.Depth, tree.LeafPages, tree.BranchPages, tree.OverflowPages));
        }
    }

    [Fact]
    public void GetStatistics_free_pages_follow_the_release_of_pending_frees()
    {
        using var env = Open();
        Load(env, "t", Enumerable.Range(0, 2000), 100);
        using (var tx = env.BeginWrite())
        {
            tx.DeleteTree("t");
            tx.Commit();
        }

        var pending = env.GetStatistics();
        Load(env, "u", [1], 10); // allocates: releases the pending pages into the bitmap (A5)
        var released = env.GetStatistics();

        Assert.True(pending.PendingFreePages > 20, pending.ToString());
        Assert.Equal(0, released.PendingFreePages);
        Assert.True(released.FreePages >= pending.FreePages - 5, $"{pending.FreePages} free before, {released.FreePages} after"); // the new tree took a page or two
        Assert.Equal(released.FreePages, released.Sections.Sum(s => (long)s.FreePages));
        Assert.Equal(env.CheckIntegrity().FreePages, released.FreePages);
    }

    [Fact]
    public void LeafFill_is_above_nine_tenths_after_an_in_order_load_and_lower_after_a_random_one()
    {
        const int Count = 20_000;
        const int Seed = 24;
        var random = new Random(Seed);
        var shuffled = Enumerable.Range(0, Count).OrderBy(_ => random.Next()).ToArray();
        using var env = Open();
        Load(env, "ordered", Enumerable.Range(0, Count), 32);
        Load(env, "random", shuffled, 32);

        var statistics = env.GetStatistics();
        var ordered = Tree(statistics, "ordered");
        var randomOrder = Tree(statistics, "random");

        Assert.True(ordered.LeafFill > 0.9, $"in order: {ordered}");
        Assert.True(randomOrder.LeafFill < 0.8, $"random order (seed {Seed}): {randomOrder}");
        Assert.True(randomOrder.LeafPages > ordered.LeafPages, $"in order {ordered}, random {randomOrder}");
        Assert.InRange(randomOrder.LeafFill, 0.5, 1.0);
        Assert.InRange(ordered.BranchFill, 0.0, 1.0);
        Assert.True(ordered.Depth >= 2 && ordered.BranchPages >= 1, ordered.ToString());
    }

    [Fact]
    public void GetStatistics_reports_an_empty_store()
    {
        using var env = Open();

        var statistics = env.GetStatistics();

        var root = Assert.Single(statistics.Trees);
        Assert.Equal(new TreeStatistics(StatisticsCollector.RootTreeName, 0, 0, 0, 0, 0, 0, 0, 0), root);
        Assert.Equal(0, statistics.FreePages);
        Assert.Null(statistics.OldestReader);
        Assert.Equal(statistics.AllocatedPages, statistics.Sections.Sum(s => (long)s.Pages));
    }

    [Fact]
    public void OldestReader_is_a_held_read_transaction_and_never_the_statistics_own()
    {
        using var env = Open();
        Load(env, "t", [1], 10);
        Assert.Null(env.GetStatistics().OldestReader);

        using var reader = env.BeginRead();
        Load(env, "t", [2], 10);
        Load(env, "t", [3], 10);
        var statistics = env.GetStatistics();

        Assert.NotNull(statistics.OldestReader);
        Assert.Equal(reader.Id, statistics.OldestReader.SnapshotTransactionId);
        Assert.Equal(2, statistics.OldestReader.HeldBackTransactions); // background flush is off: both commits wait
        Assert.Equal(reader.Id + 2, statistics.TransactionId);
    }

    [Fact]
    public void JournalFiles_lists_the_files_on_disk_with_the_current_one_active()
    {
        using var env = Open(); // 1 MiB journal files
        for (var round = 0; round < 6; round++)
        {
            Load(env, "t", Enumerable.Range(round * 400, 400), 1000, new Random(round)); // ~400 KiB of random bytes a commit
        }

        var before = env.GetStatistics();
        var onDisk = Voron.Journal.JournalFiles.List(env.FileSystem, env.Layout.JournalDirectory);

        Assert.Equal(onDisk, before.JournalFiles.Select(f => f.Number));
        Assert.True(before.JournalFiles.Count >= 2, string.Join(", ", before.JournalFiles));
        var active = Assert.Single(before.JournalFiles, f => f.State == "active");
        Assert.Equal(onDisk.Max(), active.Number);
        Assert.All(before.JournalFiles.Where(f => f != active), f => Assert.Equal("needed", f.State)); // nothing flushed yet
        Assert.All(before.JournalFiles, f => Assert.True(f.Bytes > 0, f.ToString()));

        env.FlushToDataFile(); // the header moves past the earlier files; they are deleted
        var after = env.GetStatistics();

        Assert.Equal(Voron.Journal.JournalFiles.List(env.FileSystem, env.Layout.JournalDirectory), after.JournalFiles.Select(f => f.Number));
        Assert.DoesNotContain(after.JournalFiles, f => f.Number < active.Number);
        Assert.Equal(active.Number, Assert.Single(after.JournalFiles, f => f.State == "active").Number);
    }

    [Fact]
    public void PageVersionMemory_and_ScratchBytes_show_versions_held_back_from_the_data_file()
    {
        using var env = Open(o => o.MaxPageVersionMemory = 64 * 1024);
        Load(env, "t", Enumerable.Range(0, 200), 100);
        env.FlushToDataFile();
        Assert.Equal((0, 0), (env.GetStatistics().PageVersionMemoryBytes, env.GetStatistics().ScratchBytes));

        using (var reader = env.BeginRead()) // holds every later version out of the data file
        {
            for (var round = 0; round < 10; round++)
            {
                Load(env, "t", Enumerable.Range(round * 100, 200), 200);
            }

            var held = env.GetStatistics();

            Assert.True(held.PageVersionMemoryBytes > 0, held.ToString());
            Assert.True(held.ScratchBytes > 0, $"versions beyond the 64 KiB budget spill: {held}");
            Assert.Equal(env.PageTable.SpilledBytes, held.ScratchBytes);
            Assert.Equal(env.PageTable.MemoryBytes, held.PageVersionMemoryBytes);
        }

        env.FlushToDataFile();
        var flushed = env.GetStatistics();
        Assert.Equal((0, 0), (flushed.PageVersionMemoryBytes, flushed.ScratchBytes));
    }

    [Fact]
    public async Task GetStatistics_completes_while_a_write_transaction_is_open_and_sees_only_committed_data()
    {
        using var env = Open();
        Load(env, "t", Enumerable.Range(0, 100), 10);
        using var writer = env.BeginWrite();
        var tree = writer.CreateTree("t");
        for (var i = 100; i < 1000; i++)
        {
            tree.Put(Key(i), new byte[10]);
        }

        writer.CreateTree("uncommitted").Put(Key(1), [1]);

        // On another thread: were the statistics to wait for the write lock (as CheckIntegrity does),
        // they would wait for this writer, which waits for them.
        var statistics = await Task.Run(env.GetStatistics).WaitAsync(TimeSpan.FromMinutes(2)); // a TimeoutException fails the test

        Assert.Equal(100, Tree(statistics, "t").Entries);
        Assert.DoesNotContain(statistics.Trees, t => t.Name == "uncommitted");
        writer.Commit(); // and the writer was never blocked by them
        Assert.Equal(1000, Tree(env.GetStatistics(), "t").Entries);
    }

    [Fact]
    public void GetStatistics_throws_after_dispose()
    {
        var env = Open();
        env.Dispose();

        Assert.Throws<ObjectDisposedException>(() => env.GetStatistics());
    }
}
