using System.Diagnostics.Metrics;
using Voron.Diagnostics;
using Voron.Flushing;
using Voron.Tests.Core.Journal;

namespace Voron.Tests.Core.Flushing;

/// <summary>FL6: a flush that fails, whatever the exception and the step, fails the store, reported.</summary>
public sealed class FlusherFailureTests
{
    private static void Commit(StorageEnvironment env, int i)
    {
        using var tx = env.BeginWrite();
        var key = new byte[4];
        BinaryPrimitives.WriteInt32BigEndian(key, i);
        tx.CreateTree("t").Put(key, new byte[500]);
        tx.Commit();
    }

    /// <summary>
    /// Regression: the background flusher caught only I/O errors; any other exception ended its
    /// loop silently — the store was not failed, commits went on, and memory and journal grew
    /// without bound with nothing ever flushed again. Now it fails the store (FL6) and says so:
    /// IsFailed and Failure, the voron.store.failures metric, and OnFailure.
    /// </summary>
    [Fact]
    public void A_background_flush_failing_with_a_non_io_exception_fails_the_store_and_reports_it()
    {
        using var memory = StoreFactory.NewFileSystem();
        var fs = new RecordingFileSystem(memory);
        // A path of its own: the failure metric is process-wide, and other tests fail stores at /store.
        var options = StorageEnvironmentOptions.ForFileSystem("/flusher-failure", fs);
        options.MaxDataFileSize = 1L << 30;
        options.FlushThresholdBytes = 16 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(10);
        Exception? reported = null;
        using var observed = new ManualResetEventSlim();
        options.OnFailure = e =>
        {
            reported = e;
            observed.Set();
        };
        var failures = new List<(long Value, string? Type)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name == "voron.store.failures")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            string? store = null, type = null;
            foreach (var tag in tags)
            {
                store = tag.Key == "voron.store" ? tag.Value as string : store;
                type = tag.Key == "voron.failure.type" ? tag.Value as string : type;
            }

            if (store == "/flusher-failure")
            {
                lock (failures)
                {
                    failures.Add((value, type));
                }
            }
        });
        listener.Start();
        fs.FailWith = line => new InvalidOperationException($"injected: a bug at {line}");
        fs.FailWhen = line => line.StartsWith("WriteGather /flusher-failure/voron.data", StringComparison.Ordinal);
        var env = StorageEnvironment.Open(options);

        var committed = 0;
        for (; committed < 2000 && !env.IsFailed; committed++)
        {
            try
            {
                Commit(env, committed);
            }
            catch (EnvironmentFailedException)
            {
                break;
            }

            Thread.Sleep(1);
        }

        Assert.True(SpinWait.SpinUntil(() => env.IsFailed, TimeSpan.FromSeconds(30)), "the failed background flush failed the store");
        Assert.IsType<InvalidOperationException>(env.Failure);
        Assert.True(observed.Wait(TimeSpan.FromSeconds(30)), "OnFailure was called");
        Assert.Same(env.Failure, reported);
        lock (failures)
        {
            Assert.Equal([(1L, nameof(InvalidOperationException))], failures);
        }

        var error = Assert.Throws<EnvironmentFailedException>(() => Commit(env, 100_000));
        Assert.Same(env.Failure, error.InnerException);
        Assert.Contains("InvalidOperationException", error.Message, StringComparison.Ordinal);
        env.CloseWithoutFlush();

        var reopenOptions = StorageEnvironmentOptions.ForFileSystem("/flusher-failure", memory);
        reopenOptions.MaxDataFileSize = 1L << 30;
        using var reopened = StorageEnvironment.Open(reopenOptions);
        using var read = reopened.BeginRead();
        Assert.True(read.OpenTree("t")!.Count >= committed - 1, "every acknowledged commit survives");
    }

    public static TheoryData<string> Steps => [.. Enum.GetNames<FlushStep>()];

    [Theory]
    [MemberData(nameof(Steps))]
    public void A_flush_failing_at_any_step_with_any_exception_fails_the_store_and_loses_nothing(string stepName)
    {
        var step = Enum.Parse<FlushStep>(stepName);
        using var memory = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(memory);
        var armed = 0;
        options.FlushHook = at =>
        {
            if (at == step && Interlocked.Exchange(ref armed, 0) == 1)
            {
                throw new FormatException($"injected at {at}");
            }
        };
        var env = StorageEnvironment.Open(options);
        for (var i = 0; i < 20; i++)
        {
            Commit(env, i);
        }

        Interlocked.Exchange(ref armed, 1);
        var error = Assert.Throws<EnvironmentFailedException>(() => env.FlushToDataFile());

        Assert.IsType<FormatException>(error.InnerException);
        Assert.True(env.IsFailed);
        Assert.Throws<EnvironmentFailedException>(() => Commit(env, 99));
        using (var read = env.BeginRead())
        {
            Assert.Equal(20, read.OpenTree("t")!.Count);
        }

        env.CloseWithoutFlush();
        using var reopened = StorageEnvironment.Open(StoreFactory.Options(memory));
        using (var read = reopened.BeginRead())
        {
            Assert.Equal(20, read.OpenTree("t")!.Count);
        }

        reopened.FlushToDataFile();
        reopened.CheckIntegrity();
    }
}
