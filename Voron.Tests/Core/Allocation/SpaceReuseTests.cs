namespace Voron.Tests.Core.Allocation;

public sealed class SpaceReuseTests(ITestOutputHelper output)
{
    private static byte[] Key(int i) => System.Text.Encoding.ASCII.GetBytes($"key-{i:D6}");

    private static StorageEnvironment Open(AllocationPolicy policy)
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        options.AllocationPolicy = policy;
        return StorageEnvironment.Open(options);
    }

    [Theory]
    [InlineData(AllocationPolicy.Sections)]
    [InlineData(AllocationPolicy.FirstFit)]
    public void Update_churn_stops_the_file_growing_within_one_and_a_half_times_the_live_data(AllocationPolicy policy)
    {
        var seed = TestSeed.Next(output, $"{nameof(Update_churn_stops_the_file_growing_within_one_and_a_half_times_the_live_data)}({policy})");
        var random = new Random(seed);
        using var env = Open(policy);
        const int keys = 3000, rounds = 40, warmUp = 10;
        long pagesAfterWarmUp = 0;
        long liveAfterWarmUp = 0;
        for (var round = 0; round < rounds; round++)
        {
            // The same key set rewritten with new values of 10 bytes to 6 KB: inline values move
            // between leaves as they change size (splits and merges), larger ones are overflow runs
            // freed and allocated on every update.
            for (var first = 0; first < keys; first += 100)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree("churn");
                for (var i = first; i < first + 100; i++)
                {
                    tree.Put(Key(i), new byte[random.Next(10, 6000)]);
                }

                tx.Commit();
            }

            if (round % 5 == 4)
            {
                env.FlushToDataFile();
            }

            var report = env.CheckIntegrity();
            output.WriteLine($"round {round}: {report.Pages} pages, {report.TreePages} live, {report.ReusablePages} free, {report.PendingFreePages} pending");
            if (round == warmUp - 1)
            {
                pagesAfterWarmUp = report.Pages;
                liveAfterWarmUp = report.TreePages;
            }
        }

        var end = env.CheckIntegrity();
        Assert.True(end.Pages <= 1.5 * end.TreePages, $"seed {seed}: the file has {end.Pages} pages for {end.TreePages} live ones");
        // Thirty more rewrites of the whole data set may grow the file only as the live data drifts (tree fill), not with the writes.
        // Values up to half a page stay inline (TreePage.MaxLeafNodeSize), so leaves of 2-4 KiB nodes drift by more than 10%: that drift is
        // the tree's, so the file may grow by it, and by at most 10% more.
        var drift = Math.Max(0, end.TreePages - liveAfterWarmUp);
        Assert.True(end.Pages <= (pagesAfterWarmUp * 1.10) + drift,
            $"seed {seed}: the file grew from {pagesAfterWarmUp} to {end.Pages} pages after warm-up, the live pages from {liveAfterWarmUp} to {end.TreePages}");
    }

    [Theory]
    [InlineData(AllocationPolicy.Sections)]
    [InlineData(AllocationPolicy.FirstFit)]
    public void Deleted_space_is_reused_before_the_file_grows(AllocationPolicy policy)
    {
        using var env = Open(policy);
        void Fill()
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 4000; i++)
            {
                tree.Put(Key(i), new byte[i % 10 == 0 ? 3000 : 500]);
            }

            tx.Commit();
        }

        Fill();
        var full = env.CheckIntegrity();
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 4000; i++)
            {
                tree.Delete(Key(i));
            }

            tx.Commit();
        }

        var deleted = env.CheckIntegrity();
        Assert.True(deleted.FreePages >= full.TreePages - 2, $"{deleted.FreePages} pages freed of {full.TreePages}");

        Fill();
        var refilled = env.CheckIntegrity();
        Assert.True(refilled.Pages <= full.Pages + full.Pages / 20, $"the file grew from {full.Pages} to {refilled.Pages} pages although {deleted.FreePages} were free");
    }
}
