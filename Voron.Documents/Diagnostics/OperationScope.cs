using System.Diagnostics;

namespace Voron.Documents.Diagnostics;

/// <summary>One timed operation (<see cref="DocumentsTelemetry.Start"/>): complete it exactly once.</summary>
internal readonly struct OperationScope(DocumentsTelemetry telemetry, string operation, string? collection, Activity? activity, long started)
{
    public string Operation { get; } = operation;

    public string? Collection { get; } = collection;

    public Activity? Activity { get; } = activity;

    public long Started { get; } = started;

    public void Complete(int? rows = null) => telemetry.Complete(this, null, rows);

    public void Fail(Exception error) => telemetry.Complete(this, error, null);
}
