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
/// D4: a plan xBestIndex chose, kept by the table under its number (idxNum); idxStr is its
/// <see cref="Description"/>, which EXPLAIN QUERY PLAN shows.
/// </summary>
internal sealed record DocsPlan(PlanKind Kind, string? IndexName, int Equalities, bool OrderConsumed, bool Descending, int OrderColumn, IReadOnlyList<PlanArgument> Arguments, string Description);
