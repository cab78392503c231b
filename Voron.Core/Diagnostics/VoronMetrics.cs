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

    // The open stores, for the observable gauges below (registered by Open, removed by Dispose).
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<StorageEnvironment, byte> OpenStores = new();

    internal static readonly ObservableGauge<double> OldestReaderAge =
        Meter.CreateObservableGauge("voron.reader.oldest_age", () => ObservePins(pin => pin.Age.TotalSeconds), "s",
            "How long the oldest live read transaction's snapshot has been held (it holds back flushing: SnapshotPin)");

    internal static readonly ObservableGauge<double> HeldBackBytes =
        Meter.CreateObservableGauge("voron.reader.held_back_bytes", () => ObservePins(pin => pin.HeldBackBytes), "By",
            "Bytes of committed page versions the oldest live reader keeps out of the data file (in memory and the journal)");

    internal static readonly ObservableGauge<long> PageVersionMemoryBytes =
        Meter.CreateObservableGauge("voron.page_versions.memory_bytes", () => ObserveStores(e => e.PageTable.MemoryBytes), "By",
            "Bytes of committed page versions held in memory until the data file has them (at most MaxPageVersionMemory)");

    internal static readonly ObservableGauge<long> PageVersionSpilledBytes =
        Meter.CreateObservableGauge("voron.page_versions.spilled_bytes", () => ObserveStores(e => e.PageTable.SpilledBytes), "By",
            "Bytes of committed page versions spilled to the scratch file because long-lived readers held them beyond MaxPageVersionMemory");

    internal static readonly ObservableGauge<long> ArchivePendingFiles =
        Meter.CreateObservableGauge("voron.archive.pending_files", () => ObserveShipping(status => status.PendingFiles), "{file}",
            "Archived journal files not yet shipped to the archive destination (the lag; grows while the destination is down: SH1)");

    internal static readonly ObservableGauge<long> ArchivePendingBytes =
        Meter.CreateObservableGauge("voron.archive.pending_bytes", () => ObserveShipping(status => status.PendingBytes), "By",
            "Bytes of archived journal files not yet shipped to the archive destination");

    internal static readonly ObservableGauge<long> ArchiveShippingFailures =
        Meter.CreateObservableGauge("voron.archive.consecutive_failures", () => ObserveShipping(status => status.ConsecutiveFailures), "{pass}",
            "Shipping passes that failed since the last one that succeeded (0 = the destination takes uploads)");

    internal static readonly ObservableGauge<double> ReplicaLag =
        Meter.CreateObservableGauge("voron.replica.lag", () => ObserveReplicas(status => status.Lag.TotalSeconds), "s",
            "How far a read replica's applied transaction trails the newest one it saw in the destination, in commit time (0 = caught up)");

    internal static readonly ObservableGauge<double> ReplicaAppliedTransaction =
        Meter.CreateObservableGauge("voron.replica.applied_transaction", () => ObserveReplicas(status => status.AppliedTransaction), "{transaction}",
            "The primary's transaction a read replica applied last (it stops growing when the replica stops: ReplicaStatus.State)");

    private static List<Measurement<double>> ObserveReplicas(Func<ReplicaStatus, double> value)
    {
        var measurements = new List<Measurement<double>>();
        foreach (var environment in OpenStores.Keys)
        {
            if (environment.Replica is { } status)
            {
                measurements.Add(new Measurement<double>(value(status), StoreTag(environment.Path)));
            }
        }

        return measurements;
    }

    private static List<Measurement<long>> ObserveShipping(Func<ArchiveShippingStatus, long> value)
    {
        var measurements = new List<Measurement<long>>();
        foreach (var environment in OpenStores.Keys)
        {
            if (environment.ArchiveShipping is { } status)
            {
                measurements.Add(new Measurement<long>(value(status), StoreTag(environment.Path)));
            }
        }

        return measurements;
    }

    private static List<Measurement<long>> ObserveStores(Func<StorageEnvironment, long> value) =>
        [.. OpenStores.Keys.Select(e => new Measurement<long>(value(e), StoreTag(e.Path)))];

    internal static void Track(StorageEnvironment environment) => OpenStores.TryAdd(environment, 0);

    internal static void Forget(StorageEnvironment environment) => OpenStores.TryRemove(environment, out _);

    private static List<Measurement<double>> ObservePins(Func<SnapshotPin, double> value)
    {
        var measurements = new List<Measurement<double>>();
        foreach (var environment in OpenStores.Keys)
        {
            if (environment.OldestSnapshotPin is { } pin)
            {
                measurements.Add(new Measurement<double>(value(pin), StoreTag(environment.Path)));
            }
        }

        return measurements;
    }

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

    internal static readonly Counter<long> Flushes =
        Meter.CreateCounter<long>("voron.flush.count", "{flush}", "Flushes of committed pages to the data file");

    internal static readonly Histogram<long> FlushPages =
        Meter.CreateHistogram<long>("voron.flush.pages", "{page}", "Pages one flush wrote to the data file");

    internal static readonly Histogram<long> FlushBytes =
        Meter.CreateHistogram<long>("voron.flush.bytes", "By", "Bytes one flush wrote to the data file");

    internal static readonly Histogram<int> FlushSeeks =
        Meter.CreateHistogram<int>("voron.flush.seeks", "{run}", "Discontiguous runs one flush wrote (one gathered write each)");

    /// <summary>Pages flushed by kind; tag <c>voron.page.kind</c> = leaf, branch, overflow or free_space.</summary>
    internal static readonly Counter<long> FlushedPagesByKind =
        Meter.CreateCounter<long>("voron.flush.pages_by_kind", "{page}", "Pages written to the data file, by page kind");

    /// <summary>Stores that failed (fail-stop); tag <c>voron.failure.type</c> = the exception's type name. At most one per store per open.</summary>
    internal static readonly Counter<long> StoreFailures =
        Meter.CreateCounter<long>("voron.store.failures", "{failure}", "Stores that stopped accepting writes (fail-stop) until reopened");

    internal static KeyValuePair<string, object?> StoreTag(string path) => new("voron.store", path);

    /// <summary>
    /// Records metrics: a MeterListener runs inside Record, and its exception must not fail a
    /// commit that is already durable.
    /// </summary>
    internal static void RecordSafely(Action record)
    {
        try
        {
            record();
        }
#pragma warning disable CA1031 // a listener's bug is not the store's failure
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }
}
