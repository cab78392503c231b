namespace Voron.Tests.Core.Diagnostics;

/// <summary>CheckIntegrity with progress and cancellation.</summary>
public sealed class IntegrityProgressTests
{
    private sealed class Recorder(Action<IntegrityProgress>? onReport = null) : IProgress<IntegrityProgress>
    {
        public List<IntegrityProgress> Reports { get; } = [];

        public void Report(IntegrityProgress value)
        {
            Reports.Add(value); // on the checking thread, at once (Progress<T> would post)
            onReport?.Invoke(value);
        }
    }

    private static StorageEnvironment OpenWithPages()
    {
        var env = StorageEnvironment.Open(StoreFactory.Options(StoreFactory.NewFileSystem()));
        for (var batch = 0; batch < 4; batch++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 2_000; i++)
            {
                tree.Put(BitConverter.GetBytes((batch * 2_000) + i), new byte[300]);
            }

            tx.CreateTree("big").Put(BitConverter.GetBytes(batch), new byte[40_000]); // overflow runs
            tx.Commit();
        }

        return env;
    }

    [Fact]
    public void CheckIntegrity_reports_monotone_progress_that_ends_at_the_total()
    {
        using var env = OpenWithPages();
        var recorder = new Recorder();

        var report = env.CheckIntegrity(recorder);

        Assert.True(recorder.Reports.Count >= 3, $"{recorder.Reports.Count} reports");
        Assert.All(recorder.Reports, r => Assert.Equal(report.Pages, r.TotalPages));
        for (var i = 1; i < recorder.Reports.Count; i++)
        {
            Assert.True(recorder.Reports[i].PagesChecked > recorder.Reports[i - 1].PagesChecked, $"report {i} went back");
        }

        Assert.Equal(report.Pages, recorder.Reports[^1].PagesChecked);
        Assert.Equal(env.CheckIntegrity(), report); // the overload checks what the plain check does
    }

    [Fact]
    public void CheckIntegrity_stops_with_OperationCanceledException_when_cancelled_and_the_store_goes_on()
    {
        using var env = OpenWithPages();
        using var cancel = new CancellationTokenSource();
        var recorder = new Recorder(r =>
        {
            if (r.PagesChecked > r.TotalPages / 3)
            {
                cancel.Cancel();
            }
        });

        Assert.ThrowsAny<OperationCanceledException>(() => env.CheckIntegrity(recorder, cancel.Token));

        Assert.True(recorder.Reports[^1].PagesChecked < recorder.Reports[^1].TotalPages); // stopped before the end
        Assert.ThrowsAny<OperationCanceledException>(() => env.CheckIntegrity(null, cancel.Token)); // cancelled before it starts
        using (var tx = env.BeginWrite()) // the check's write transaction was released
        {
            tx.CreateTree("t").Put("after"u8, "x"u8);
            tx.Commit();
        }

        env.CheckIntegrity(null, CancellationToken.None);
    }
}
