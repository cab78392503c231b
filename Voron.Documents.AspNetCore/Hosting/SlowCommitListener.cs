using System.Diagnostics.Metrics;
using Microsoft.Extensions.Logging;
using Voron.Diagnostics;
using Voron.Documents.AspNetCore.Logging;

namespace Voron.Documents.AspNetCore.Hosting;

/// <summary>
/// Warns about slow commits of one store: listens to the engine's <c>voron.journal.flush_duration</c>
/// (one measurement per journal record, so per merged transaction, not per request: H4) and logs
/// those above the threshold. Created only when the warning is on (threshold above zero and the
/// logger enabled for warnings).
/// </summary>
internal sealed class SlowCommitListener : IDisposable
{
    private const string Instrument = "voron.journal.flush_duration";

    private readonly MeterListener _listener = new();

    private SlowCommitListener(ILogger logger, string store, string path, TimeSpan threshold)
    {
        var thresholdMs = threshold.TotalMilliseconds;
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == VoronMetrics.MeterName && instrument.Name == Instrument)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<double>((_, milliseconds, tags, _) =>
        {
            if (milliseconds < thresholdMs)
            {
                return;
            }

            foreach (var tag in tags)
            {
                if (tag is { Key: "voron.store", Value: string storePath } && storePath == path)
                {
                    DocumentStoreLog.SlowCommit(logger, store, path, milliseconds, thresholdMs);
                }
            }
        });
        _listener.Start();
    }

    public static SlowCommitListener? Start(ILogger logger, string store, string path, TimeSpan threshold) =>
        threshold > TimeSpan.Zero && logger.IsEnabled(LogLevel.Warning) ? new SlowCommitListener(logger, store, path, threshold) : null;

    public void Dispose() => _listener.Dispose();
}
