using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.Tests.Sql.VirtualTables;

/// <summary>The virtual-table structs match sqlite3.h on 64-bit: a wrong offset would call the wrong function or read the wrong field.</summary>
public sealed class VirtualTableStructLayoutTests
{
    [Fact]
    public void Sqlite3_module_is_200_bytes_with_sqlite_h_offsets()
    {
        Assert.Equal(200, Marshal.SizeOf<SqliteModuleStruct>());
        Assert.Equal(8, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Create)));
        Assert.Equal(16, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Connect)));
        Assert.Equal(24, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.BestIndex)));
        Assert.Equal(48, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Open)));
        Assert.Equal(64, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Filter)));
        Assert.Equal(104, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Update)));
        Assert.Equal(112, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Begin)));
        Assert.Equal(144, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.FindFunction)));
        Assert.Equal(152, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Rename)));
        Assert.Equal(160, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Savepoint)));
        Assert.Equal(176, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.RollbackTo)));
        Assert.Equal(184, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.ShadowName)));
        Assert.Equal(192, Offset<SqliteModuleStruct>(nameof(SqliteModuleStruct.Integrity)));
    }

    [Fact]
    public void Our_sqlite3_vtab_is_sqlites_three_members_then_the_handle()
    {
        Assert.Equal(32, Marshal.SizeOf<SqliteVtab>());
        Assert.Equal(8, Offset<SqliteVtab>(nameof(SqliteVtab.RefCount)));
        Assert.Equal(16, Offset<SqliteVtab>(nameof(SqliteVtab.ErrorMessage)));
        Assert.Equal(24, Offset<SqliteVtab>(nameof(SqliteVtab.Handle)));
    }

    [Fact]
    public void Our_sqlite3_vtab_cursor_is_pVtab_then_the_handle()
    {
        Assert.Equal(16, Marshal.SizeOf<SqliteVtabCursor>());
        Assert.Equal(8, Offset<SqliteVtabCursor>(nameof(SqliteVtabCursor.Handle)));
    }

    [Fact]
    public void Sqlite3_index_info_is_96_bytes_with_colUsed_at_88()
    {
        Assert.Equal(96, Marshal.SizeOf<SqliteIndexInfoStruct>());
        Assert.Equal(8, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.Constraints)));
        Assert.Equal(16, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.OrderByCount)));
        Assert.Equal(24, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.OrderBys)));
        Assert.Equal(32, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.ConstraintUsage)));
        Assert.Equal(40, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.IndexNumber)));
        Assert.Equal(48, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.IndexString)));
        Assert.Equal(56, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.NeedToFreeIndexString)));
        Assert.Equal(60, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.OrderByConsumed)));
        Assert.Equal(64, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.EstimatedCost)));
        Assert.Equal(72, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.EstimatedRows)));
        Assert.Equal(80, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.IndexFlags)));
        Assert.Equal(88, Offset<SqliteIndexInfoStruct>(nameof(SqliteIndexInfoStruct.ColumnsUsed)));
    }

    [Fact]
    public void The_index_info_arrays_and_a_value_have_sqlite_h_sizes()
    {
        Assert.Equal(12, Marshal.SizeOf<SqliteIndexConstraint>());
        Assert.Equal(4, Offset<SqliteIndexConstraint>(nameof(SqliteIndexConstraint.Operator)));
        Assert.Equal(5, Offset<SqliteIndexConstraint>(nameof(SqliteIndexConstraint.Usable)));
        Assert.Equal(8, Offset<SqliteIndexConstraint>(nameof(SqliteIndexConstraint.TermOffset)));
        Assert.Equal(8, Marshal.SizeOf<SqliteIndexOrderBy>());
        Assert.Equal(4, Offset<SqliteIndexOrderBy>(nameof(SqliteIndexOrderBy.Descending)));
        Assert.Equal(8, Marshal.SizeOf<SqliteIndexConstraintUsage>());
        Assert.Equal(4, Offset<SqliteIndexConstraintUsage>(nameof(SqliteIndexConstraintUsage.Omit)));
        Assert.Equal(IntPtr.Size, Marshal.SizeOf<SqliteValue>()); // sqlite3_value** is read as a span of SqliteValue
    }

    private static int Offset<T>(string field) => (int)Marshal.OffsetOf<T>(field);
}
