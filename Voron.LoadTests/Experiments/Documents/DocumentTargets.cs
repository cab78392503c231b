namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// The targets of Voron.Documents' rows, as ratios from one run: to SQLite's row of the same
/// workload and callers (vsSqlite), to the engine floor's (vsFloor, <c>voron-kv</c>), and for the
/// bulk insert an absolute rate. A workload and caller count without a target has none here.
/// </summary>
internal static class DocumentTargets
{
    /// <summary>The bulk insert's absolute target, documents per second on the 2-core VM.</summary>
    public const double BulkDocumentsPerSecond = 100_000;

    /// <summary>At least this many times SQLite's rate; null: no target.</summary>
    public static double? VsSqlite(string workload, int callers) => (workload, callers) switch
    {
        (DocumentWorkloads.Insert, 64) => 10,
        (DocumentWorkloads.Insert, 1) => 1.5,
        (DocumentWorkloads.Bulk, _) => 2,
        (DocumentWorkloads.Load, 1 or 2) => 3,
        (DocumentWorkloads.QueryEqual or DocumentWorkloads.QueryRange, _) => 1.5,
        _ => null,
    };

    /// <summary>At least this fraction of the engine floor's rate; null: no target.</summary>
    public static double? VsFloor(string workload, int callers) => (workload, callers) switch
    {
        (DocumentWorkloads.Insert, 64) => 0.5,
        (DocumentWorkloads.Bulk, _) => 0.5,
        _ => null,
    };

    /// <summary>At least this many operations per second; null: no target.</summary>
    public static double? OperationsPerSecond(string workload) => workload == DocumentWorkloads.Bulk ? BulkDocumentsPerSecond : null;

    /// <summary>The row's targets in words ("vsSqlite >= 10, vsFloor >= 0.5"), null when it has none.</summary>
    public static string? Describe(string workload, int callers)
    {
        var parts = new List<string>();
        if (VsSqlite(workload, callers) is { } sqlite)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"vsSqlite >= {sqlite}"));
        }

        if (VsFloor(workload, callers) is { } floor)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"vsFloor >= {floor}"));
        }

        if (OperationsPerSecond(workload) is { } rate)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"opsPerSec >= {rate:N0}"));
        }

        return parts.Count == 0 ? null : string.Join(", ", parts);
    }

    /// <summary>
    /// "yes", "no" or "n/a" (no row of the other engine in this run to compare with) for each target
    /// of the row, in <see cref="Describe"/>'s order; null when it has none.
    /// </summary>
    public static string? Met(string workload, int callers, double opsPerSec, double? vsSqlite, double? vsFloor)
    {
        static string? One(double? value, double? target) => target == null ? null : value == null ? "n/a" : value >= target ? "yes" : "no";
        var verdicts = new[]
        {
            One(vsSqlite, VsSqlite(workload, callers)),
            One(vsFloor, VsFloor(workload, callers)),
            One(opsPerSec, OperationsPerSecond(workload)),
        }.Where(v => v != null).ToList();
        return verdicts.Count == 0 ? null : string.Join(", ", verdicts);
    }
}
