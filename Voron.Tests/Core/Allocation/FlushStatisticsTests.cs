using System.Diagnostics.Metrics;
using Voron.Diagnostics;

namespace Voron.Tests.Core.Allocation;

public sealed class FlushStatisticsTests
{
    [Fact]
    public void ToLogLine_has_the_shape_of_the_original_flush_log()
    {
        var statistics = new FlushStatistics(1154, 3, 159, 636 * 1024, 2, LeafPages: 107, BranchPages: 52, OverflowPages: 0);

        Assert.Equal("Flush 1,154 with 159 pages - 636 kb writes and 2 seeks (107 leaves, 52 branches, 0 overflows)", statistics.ToLogLine());
    }

    [Fact]
    public void Flush_counts_pages_by_kind_and_reports_to_the_log_the_callback_and_the_metrics()
    {
        var lines = new List<string>();
        var reported = new List<FlushStatistics>();
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        options.FlushLog = lines.Add;
        options.OnFlush = reported.Add;
        long seeks = 0, flushes = 0;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name is "voron.flush.seeks" or "voron.flush.count")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Interlocked.Add(ref seeks, value));
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            if (tags.ToArray().Any(t => t.Key == "voron.store" && (string?)t.Value == "/store"))
            {
                Interlocked.Add(ref flushes, value);
            }
        });
        listener.Start();

        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 1000; i++)
            {
                tree.Put(System.Text.Encoding.ASCII.GetBytes($"key-{i:D5}"), new byte[i % 100 == 0 ? 20_000 : 200]);
            }

            tx.Commit();
        }

        var statistics = env.FlushToDataFile()!;

        Assert.Equal(statistics, Assert.Single(reported));
        Assert.Equal(statistics.ToLogLine(), Assert.Single(lines));
        Assert.True(statistics.LeafPages > 10 && statistics.BranchPages >= 1 && statistics.OverflowPages == 10 * 3, statistics.ToString());
        Assert.Equal(statistics.Pages, statistics.LeafPages + statistics.BranchPages + statistics.OverflowPages + statistics.FreeSpacePages);
        Assert.Equal(statistics.Pages * Constants.PageSize, statistics.Bytes);
        Assert.InRange(statistics.Seeks, 1, statistics.Pages);
        Assert.True(Interlocked.Read(ref seeks) >= statistics.Seeks);
        Assert.True(Interlocked.Read(ref flushes) >= 1);
    }

    [Fact]
    public void A_throwing_flush_callback_does_not_fail_the_flush()
    {
        var options = StoreFactory.Options(StoreFactory.NewFileSystem());
        options.OnFlush = _ => throw new InvalidOperationException("observer bug");
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Commit();
        }

        Assert.NotNull(env.FlushToDataFile());
        Assert.Equal(env.LastCommittedTransactionId, env.LastFlushedTransactionId);
    }
}
