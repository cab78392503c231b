using System.Diagnostics.Metrics;

namespace Voron.Diagnostics;

/// <summary>
/// The engine's metrics, published through System.Diagnostics.Metrics under the meter
/// <c>Voron.Core</c> (listen with dotnet-counters, OpenTelemetry or a MeterListener). Every
/// measurement carries the tag <c>voron.store</c> with the store's directory.
/// </summary>
public static class VoronMetrics
{
    /// <summary>The meter's name.</summary>
    public const string MeterName = "Voron.Core";

    private static readonly Meter Meter = new(MeterName, "1.0");

    internal static readonly Counter<long> Batches =
        Meter.CreateCounter<long>("voron.merger.batches", "{batch}", "Write batches the transaction merger committed");

    internal static readonly Counter<long> Operations =
        Meter.CreateCounter<long>("voron.merger.operations", "{operation}", "Merged write operations acknowledged as durable");

    internal static readonly Histogram<int> OperationsPerBatch =
        Meter.CreateHistogram<int>("voron.merger.operations_per_batch", "{operation}", "Operations merged into one transaction");

    internal static readonly Histogram<long> JournalWriteBytes =
        Meter.CreateHistogram<long>("voron.journal.write_bytes", "By", "Bytes of one journal record write");

    internal static readonly Histogram<double> JournalFlushMilliseconds =
        Meter.CreateHistogram<double>("voron.journal.flush_duration", "ms", "Time to write and flush one journal record");

    internal static KeyValuePair<string, object?> StoreTag(string path) => new("voron.store", path);
}
