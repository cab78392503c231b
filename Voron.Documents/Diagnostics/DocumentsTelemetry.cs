using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;

namespace Voron.Documents.Diagnostics;

/// <summary>
/// The store's instruments (<see cref="DocumentsDiagnostics"/> lists the names) and its spans.
/// A store opened with an <see cref="IMeterFactory"/> (dependency injection) records on the
/// factory's meter; otherwise on one process-wide meter. Tags stay low-cardinality: operation,
/// collection, store directory and error type — never ids.
/// </summary>
internal sealed class DocumentsTelemetry
{
    public static readonly ActivitySource Source = new(DocumentsDiagnostics.ActivitySourceName, Version);

    private const string Version = "1.0";
    private static readonly ConditionalWeakTable<Meter, Instruments> ByMeter = new();
    private static readonly Lazy<Meter> SharedMeter = new(() => new Meter(DocumentsDiagnostics.MeterName, Version));

    private readonly Instruments _instruments;
    private readonly string _namespace;

    public DocumentsTelemetry(string storePath, IMeterFactory? meterFactory)
    {
        var meter = meterFactory?.Create(new MeterOptions(DocumentsDiagnostics.MeterName) { Version = Version }) ?? SharedMeter.Value;
        _instruments = ByMeter.GetValue(meter, static m => new Instruments(m));
        _namespace = storePath;
    }

    /// <summary>Starts timing (and, when something listens, tracing) one operation.</summary>
    public OperationScope Start(string operation, string? collection)
    {
        var activity = Source.HasListeners()
            ? Source.StartActivity(collection == null ? operation : operation + " " + collection, ActivityKind.Client)
            : null;
        if (activity != null)
        {
            activity.SetTag("db.system.name", DocumentsDiagnostics.SystemName);
            activity.SetTag("db.operation.name", operation);
            activity.SetTag("db.namespace", _namespace);
            if (collection != null)
            {
                activity.SetTag("db.collection.name", collection);
            }
        }

        return new OperationScope(this, operation, collection, activity, Stopwatch.GetTimestamp());
    }

    public void RecordWritten(string collection, long count)
    {
        if (_instruments.Written.Enabled)
        {
            _instruments.Written.Add(count, new KeyValuePair<string, object?>("db.collection.name", collection), new KeyValuePair<string, object?>("db.namespace", _namespace));
        }
    }

    internal void Complete(in OperationScope scope, Exception? error, int? rows)
    {
        var duration = Stopwatch.GetElapsedTime(scope.Started).TotalSeconds;
        if (_instruments.Duration.Enabled)
        {
            var tags = new TagList
            {
                { "db.system.name", DocumentsDiagnostics.SystemName },
                { "db.operation.name", scope.Operation },
                { "db.namespace", _namespace },
            };
            if (scope.Collection != null)
            {
                tags.Add("db.collection.name", scope.Collection);
            }

            if (error != null)
            {
                tags.Add("error.type", error.GetType().FullName);
            }

            _instruments.Duration.Record(duration, tags);
            if (rows is { } count && error == null)
            {
                _instruments.Rows.Record(count, tags);
            }
        }

        if (scope.Activity is { } activity)
        {
            if (error != null)
            {
                activity.SetTag("error.type", error.GetType().FullName);
                activity.SetStatus(ActivityStatusCode.Error, error.Message);
            }
            else if (rows is { } count)
            {
                activity.SetTag("db.response.returned_rows", count);
            }

            activity.Dispose();
        }
    }

    private sealed class Instruments(Meter meter)
    {
        public readonly Histogram<double> Duration = meter.CreateHistogram(DocumentsDiagnostics.OperationDuration, "s",
            "Duration of document store operations (a session's save, a load, a query, a bulk insert, an index build).", null,
            new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] });

        public readonly Histogram<int> Rows = meter.CreateHistogram<int>(DocumentsDiagnostics.ReturnedRows, "{document}", "Documents one query returned.");

        public readonly Counter<long> Written = meter.CreateCounter<long>(DocumentsDiagnostics.DocumentsWritten, "{document}", "Documents stored or deleted.");
    }
}
