using System.Diagnostics.Metrics;
using Voron.Diagnostics;

namespace Voron.LoadTests.Measurement;

/// <summary>
/// Collects, per store, the engine's own <c>voron.journal.flush_duration</c> measurements (one per
/// journal record: encoding, the write and its fdatasync) through the public metrics, so an
/// experiment can show what a journal flush costs under its load, beside the idle machine's
/// fdatasync latency.
/// </summary>
internal sealed class JournalWriteListener : IDisposable
{
    private const string InstrumentName = "voron.journal.flush_duration";

    private readonly MeterListener _listener = new();
    private readonly Dictionary<string, LatencySample> _byStore = new(StringComparer.Ordinal);

    public JournalWriteListener()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name == InstrumentName)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<double>((_, milliseconds, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag is { Key: "voron.store", Value: string store })
                {
                    lock (_byStore)
                    {
                        if (!_byStore.TryGetValue(store, out var sample))
                        {
                            _byStore[store] = sample = new LatencySample();
                        }

                        sample.Add(milliseconds);
                    }
                }
            }
        });
        _listener.Start();
    }

    /// <summary>The journal record times of the store at <paramref name="storePath"/> so far (a copy).</summary>
    public LatencySample For(string storePath)
    {
        var copy = new LatencySample();
        lock (_byStore)
        {
            if (_byStore.TryGetValue(storePath, out var sample))
            {
                copy.AddAll(sample);
            }
        }

        return copy;
    }

    public void Dispose() => _listener.Dispose();
}
