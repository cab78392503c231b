namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>The constraint operators of sqlite3_index_info (SQLITE_INDEX_CONSTRAINT_*).</summary>
internal enum IndexOperator : byte
{
    Equal = 2,
    GreaterThan = 4,
    LessThanOrEqual = 8,
    LessThan = 16,
    GreaterThanOrEqual = 32,
    Match = 64,
    Like = 65,
    Glob = 66,
    Regexp = 67,
    NotEqual = 68,
    IsNot = 69,
    IsNotNull = 70,
    IsNull = 71,
    Is = 72,
    Limit = 73,
    Offset = 74,
    Function = 150,
}

/// <summary>One entry of aConstraint.</summary>
internal readonly record struct IndexConstraint(int Column, IndexOperator Operator, bool Usable);

/// <summary>One entry of aOrderBy.</summary>
internal readonly record struct IndexOrderBy(int Column, bool Descending);

/// <summary>
/// xBestIndex's sqlite3_index_info, valid only during the call: read the constraints and ORDER
/// BY, say which constraints the plan uses (argvIndex, omit) and what the plan costs.
/// </summary>
internal sealed unsafe class IndexInfo
{
    public int ConstraintCount => throw new NotImplementedException();

    public IndexConstraint Constraint(int i) => throw new NotImplementedException();

    /// <summary>Passes constraint <paramref name="i"/>'s right-hand value to xFilter as arguments[argvIndex - 1]; <paramref name="omit"/>: SQLite does not re-check it.</summary>
    public void Use(int i, int argvIndex, bool omit) => throw new NotImplementedException();

    public int OrderByCount => throw new NotImplementedException();

    public IndexOrderBy OrderBy(int i) => throw new NotImplementedException();

    public bool OrderByConsumed { set => throw new NotImplementedException(); }

    public int IndexNumber { set => throw new NotImplementedException(); }

    /// <summary>idxStr (copied into sqlite3_malloc'd memory SQLite frees: needToFreeIdxStr).</summary>
    public string? IndexString { set => throw new NotImplementedException(); }

    public double EstimatedCost { set => throw new NotImplementedException(); }

    public long EstimatedRows { set => throw new NotImplementedException(); }

    /// <summary>idxFlags SQLITE_INDEX_SCAN_UNIQUE: the plan returns at most one row.</summary>
    public bool Unique { set => throw new NotImplementedException(); }

    /// <summary>colUsed: bit n for column n (bit 63 for every column from 63 on).</summary>
    public ulong ColumnsUsed => throw new NotImplementedException();

    /// <summary>sqlite3_vtab_collation: the collation of constraint <paramref name="i"/> ("BINARY", "NOCASE"...).</summary>
    public string Collation(int i) => throw new NotImplementedException();

    /// <summary>sqlite3_vtab_rhs_value: the constraint's right-hand value when known while planning (a constant), else false.</summary>
    public bool TryGetRightValue(int i, out SqliteValue value) => throw new NotImplementedException();

    /// <summary>sqlite3_vtab_in(info, i, -1) then (info, i, 1): true when the IN list arrives whole in one xFilter (iterate it with <see cref="SqliteValue.InValues"/>).</summary>
    public bool TryUseInList(int i) => throw new NotImplementedException();

    /// <summary>sqlite3_vtab_distinct: 0 (plain), 1 (GROUP BY), 2 (DISTINCT), 3 (DISTINCT and ORDER BY).</summary>
    public int Distinct => throw new NotImplementedException();
}
