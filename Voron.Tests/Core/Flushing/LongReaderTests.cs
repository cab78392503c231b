using System.Diagnostics.Metrics;
using Voron.Diagnostics;

namespace Voron.Tests.Core.Flushing;

/// <summary>FL7: a reader that holds flushing back is visible — SnapshotPin, OnLongReader and the gauges — and its end lets the flush catch up.</summary>
public sealed class LongReaderTests
{
    [Fact]
    public void A_long_reader_is_reported_with_what_it_holds_back_and_everything_flushes_once_it_ends()
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/long-reader", StoreFactory.NewFileSystem());
        options.MaxDataFileSize = 1L << 30;
        options.FlushInterval = TimeSpan.FromMilliseconds(10);
        options.FlushThresholdBytes = 64 * 1024;
        options.LongReaderThreshold = TimeSpan.FromMilliseconds(50);
        var warnings = new System.Collections.Concurrent.ConcurrentQueue<SnapshotPin>();
        options.OnLongReader = warnings.Enqueue;
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, new byte[100]);
            tx.Commit();
        }

        Assert.Null(env.OldestSnapshotPin);
        var reader = env.BeginRead();
        for (var i = 0; i < 20; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(BitConverter.GetBytes(i), new byte[3000]);
            tx.Commit();
        }

        // The warning repeats every threshold; one made while the loop above was still committing
        // (a loaded machine can take longer than 50 ms for it) holds back fewer: wait for the full one.
        Assert.True(SpinWait.SpinUntil(() => warnings.Any(w => w.HeldBackTransactions == 20), TimeSpan.FromSeconds(30)),
            $"OnLongReader warned of the 20 commits held back (warnings: {string.Join(", ", warnings.Select(w => w.HeldBackTransactions))})");
        var warning = warnings.First(w => w.HeldBackTransactions == 20);
        Assert.Equal(reader.Id, warning.SnapshotTransactionId);
        Assert.Equal(20, warning.HeldBackTransactions);
        Assert.True(warning.HeldBackBytes >= 20 * 3000, $"{warning.HeldBackBytes} bytes held back");
        Assert.True(warning.Age >= options.LongReaderThreshold);
        Assert.True(env.LastFlushedTransactionId <= reader.Id, "nothing after the reader's snapshot reached the data file");

        var gauges = ObserveGauges("/long-reader");
        Assert.True(gauges["voron.reader.oldest_age"] >= 0.05);
        Assert.True(gauges["voron.reader.held_back_bytes"] >= 20 * 3000);

        reader.Dispose();
        Assert.Null(env.OldestSnapshotPin);
        Assert.True(SpinWait.SpinUntil(() => env.LastFlushedTransactionId == env.LastCommittedTransactionId, TimeSpan.FromSeconds(30)),
            "the flush caught up once the reader ended");
    }

    private static Dictionary<string, double> ObserveGauges(string store)
    {
        var values = new Dictionary<string, double>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name.StartsWith("voron.reader.", StringComparison.Ordinal))
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag.Key == "voron.store" && (string?)tag.Value == store)
                {
                    values[instrument.Name] = value;
                }
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();
        return values;
    }
}
