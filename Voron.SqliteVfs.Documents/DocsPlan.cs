using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Documents;

internal enum PlanKind
{
    Scan,
    IdEquals,
    IdIn,
    IdRange,
    Index,
}

internal enum ArgumentRole
{
    Collection,
    IdEquals,
    IdIn,
    IdLower,
    IdUpper,
    KeyEquals,
    KeyLower,
    KeyUpper,
    Limit,
    Offset,
}

/// <summary>What one xFilter argument is: its role, its operator and, for an index key, its component.</summary>
internal readonly record struct PlanArgument(ArgumentRole Role, IndexOperator Operator, int Component = 0);

/// <summary>
/// SD4: a plan xBestIndex chose, kept by the table under its number (idxNum); idxStr is its
/// <see cref="Description"/>, which EXPLAIN QUERY PLAN shows.
/// </summary>
/// <param name="Kind">How rows are found.</param>
/// <param name="IndexName">The index an <see cref="PlanKind.Index"/> plan reads.</param>
/// <param name="Equalities">How many leading index paths have an equality.</param>
/// <param name="OrderConsumed">Whether the plan returns rows in the ORDER BY's order (SQLite does not sort).</param>
/// <param name="Descending">The ORDER BY's direction.</param>
/// <param name="OrderColumn">The ORDER BY's column, or -1.</param>
/// <param name="Arguments">What each xFilter argument is, in order.</param>
/// <param name="Description">idxStr: what EXPLAIN QUERY PLAN shows.</param>
/// <param name="ReadsJson">Whether a column the statement uses needs the JSON (colUsed: body or a path column); else rows are read without decoding bodies.</param>
internal sealed record DocsPlan(PlanKind Kind, string? IndexName, int Equalities, bool OrderConsumed, bool Descending, int OrderColumn, IReadOnlyList<PlanArgument> Arguments, string Description, bool ReadsJson = true);
