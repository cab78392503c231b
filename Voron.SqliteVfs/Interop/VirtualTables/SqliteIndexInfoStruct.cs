using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// <c>sqlite3_index_info</c> (sqlite3.h): 96 bytes on 64-bit, colUsed at 88; offsets asserted by
/// VirtualTableStructLayoutTests. SQLite owns it and its arrays; xBestIndex fills the output
/// members (aConstraintUsage, idxNum, idxStr, orderByConsumed, estimatedCost, estimatedRows,
/// idxFlags).
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteIndexInfoStruct
{
    // Inputs.
    public int ConstraintCount;
    public SqliteIndexConstraint* Constraints;
    public int OrderByCount;
    public SqliteIndexOrderBy* OrderBys;

    // Outputs.
    public SqliteIndexConstraintUsage* ConstraintUsage;
    public int IndexNumber;
    public byte* IndexString;
    public int NeedToFreeIndexString;
    public int OrderByConsumed;
    public double EstimatedCost;
    public long EstimatedRows;
    public int IndexFlags;

    // Input.
    public ulong ColumnsUsed;
}

/// <summary><c>struct sqlite3_index_constraint</c>: 12 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct SqliteIndexConstraint
{
    public int Column;
    public byte Operator;
    public byte Usable;
    public int TermOffset;
}

/// <summary><c>struct sqlite3_index_orderby</c>: 8 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct SqliteIndexOrderBy
{
    public int Column;
    public byte Descending;
}

/// <summary><c>struct sqlite3_index_constraint_usage</c>: 8 bytes.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct SqliteIndexConstraintUsage
{
    public int ArgvIndex;
    public byte Omit;
}
