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
    private SqliteIndexInfoStruct* _info;

    /// <summary>Over SQLite's struct for one xBestIndex call; <see cref="Invalidate"/> when it returns.</summary>
    internal static IndexInfo Over(SqliteIndexInfoStruct* info) => new() { _info = info };

    /// <summary>The struct is SQLite's again: any later use throws instead of touching freed memory.</summary>
    internal void Invalidate() => _info = null;

    private SqliteIndexInfoStruct* Info =>
        _info != null ? _info : throw new InvalidOperationException("IndexInfo is valid only during the xBestIndex call that received it.");

    private static int Checked(int i, int count) =>
        (uint)i < (uint)count ? i : throw new ArgumentOutOfRangeException(nameof(i), i, $"Index {i} is outside 0..{count - 1}.");

    public int ConstraintCount => Info->ConstraintCount;

    public IndexConstraint Constraint(int i)
    {
        var c = Info->Constraints[Checked(i, Info->ConstraintCount)];
        return new IndexConstraint(c.Column, (IndexOperator)c.Operator, c.Usable != 0);
    }

    /// <summary>Passes constraint <paramref name="i"/>'s right-hand value to xFilter as arguments[argvIndex - 1]; <paramref name="omit"/>: SQLite does not re-check it.</summary>
    public void Use(int i, int argvIndex, bool omit)
    {
        ref var usage = ref Info->ConstraintUsage[Checked(i, Info->ConstraintCount)];
        usage.ArgvIndex = argvIndex;
        usage.Omit = omit ? (byte)1 : (byte)0;
    }

    public int OrderByCount => Info->OrderByCount;

    public IndexOrderBy OrderBy(int i)
    {
        var o = Info->OrderBys[Checked(i, Info->OrderByCount)];
        return new IndexOrderBy(o.Column, o.Descending != 0);
    }

    public bool OrderByConsumed { set => Info->OrderByConsumed = value ? 1 : 0; }

    public int IndexNumber { set => Info->IndexNumber = value; }

    /// <summary>idxStr (copied into sqlite3_malloc'd memory SQLite frees: needToFreeIdxStr).</summary>
    public string? IndexString
    {
        set
        {
            var info = Info;
            if (info->NeedToFreeIndexString != 0 && info->IndexString != null)
            {
                SqliteNative.Free(info->IndexString); // set twice: the first copy is ours to free
            }

            info->IndexString = null;
            info->NeedToFreeIndexString = 0;
            if (value != null)
            {
                info->IndexString = SqliteNative.MallocString(value);
                if (info->IndexString == null)
                {
                    throw new VirtualTableException(SqliteConstants.NoMem, "Out of memory copying idxStr.");
                }

                info->NeedToFreeIndexString = 1;
            }
        }
    }

    public double EstimatedCost { set => Info->EstimatedCost = value; }

    public long EstimatedRows { set => Info->EstimatedRows = value; }

    /// <summary>idxFlags SQLITE_INDEX_SCAN_UNIQUE: the plan returns at most one row.</summary>
    public bool Unique
    {
        set => Info->IndexFlags = value
            ? Info->IndexFlags | SqliteConstants.IndexScanUnique
            : Info->IndexFlags & ~SqliteConstants.IndexScanUnique;
    }

    /// <summary>colUsed: bit n for column n (bit 63 for every column from 63 on).</summary>
    public ulong ColumnsUsed => Info->ColumnsUsed;

    /// <summary>sqlite3_vtab_collation: the collation of constraint <paramref name="i"/> ("BINARY", "NOCASE"...).</summary>
    public string Collation(int i) => SqliteNative.Utf8String(SqliteNative.VtabCollation(Info, Checked(i, Info->ConstraintCount))) ?? "BINARY";

    /// <summary>sqlite3_vtab_rhs_value: the constraint's right-hand value when known while planning (a constant), else false.</summary>
    public bool TryGetRightValue(int i, out SqliteValue value)
    {
        nint native = 0;
        var rc = SqliteNative.VtabRhsValue(Info, Checked(i, Info->ConstraintCount), &native);
        value = new SqliteValue(native);
        return rc == SqliteConstants.Ok && native != 0;
    }

    /// <summary>sqlite3_vtab_in(info, i, -1) then (info, i, 1): true when the IN list arrives whole in one xFilter (iterate it with <see cref="SqliteValue.InValues"/>).</summary>
    public bool TryUseInList(int i)
    {
        var info = Info;
        Checked(i, info->ConstraintCount);
        return SqliteNative.VtabIn(info, i, -1) == 1 && SqliteNative.VtabIn(info, i, 1) == 1;
    }

    /// <summary>sqlite3_vtab_distinct: 0 (plain), 1 (GROUP BY), 2 (DISTINCT), 3 (DISTINCT and ORDER BY).</summary>
    public int Distinct => SqliteNative.VtabDistinct(Info);
}
