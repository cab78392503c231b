
namespace Voron.Diagnostics.Experiments.SqlDocs;

/// <summary>
/// The workloads of the <c>sqldocs</c> experiment, the connection counts they run at, and the
/// targets for voron-sql-docs' rate as a ratio to sqlite's and to voron-documents'.
/// </summary>
internal static class SqlDocsWorkloads
{
    public const string Lookup = "lookup";
    public const string QueryEqual = "query-eq";
    public const string QueryRange = "query-range";
    public const string Join = "join";
    public const string Insert = "insert";
    public const string CrossDoor = "cross-door";

    /// <summary>Rows a query returns at most (LIMIT / Take), and purchase rows a join reads.</summary>
    public const int Take = 20;

    /// <summary>Every configuration, reads first (so each engine reads the same preloaded data), then writes.</summary>
    public static (string Workload, int Connections)[] All { get; } =
    [
        (Lookup, 1), (QueryEqual, 1), (QueryRange, 1), (Join, 1),
        (Insert, 1), (Insert, 64), (CrossDoor, 64),
    ];

    public static bool Writes(string workload) => workload is Insert or CrossDoor;

    /// <summary>The smallest voron-sql-docs / sqlite ratio targeted, or null where there is no target.</summary>
    public static double? SqliteTarget(string workload, int connections) => workload switch
    {
        Lookup or QueryEqual or QueryRange => 1.2,
        Insert or CrossDoor when connections >= 64 => 10,
        _ => null,
    };

    /// <summary>The smallest voron-sql-docs / voron-documents ratio targeted (the same query through both doors), or null.</summary>
    public static double? DocumentsTarget(string workload) => workload is Lookup or QueryEqual or QueryRange ? 0.7 : null;
}
