using System.Reflection;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.Tests.Sql;

/// <summary>
/// SqliteNative's function pointers (EX1, EX2): the sqlite3_api_routines slots match
/// sqlite3ext.h, the extension refuses a SQLite older than 3.38.0, and binding leaves no field null.
/// </summary>
public sealed class SqliteNativeBindingTests
{
    [Fact]
    public void Slots_are_the_positions_in_sqlite3ext_h()
    {
        // offsetof(sqlite3_api_routines, name) / sizeof(void*), read from sqlite3ext.h (3.40.1).
        Assert.Equal(50, SqliteApiSlots.DeclareVtab.Slot);
        Assert.Equal(67, SqliteApiSlots.LibVersionNumber.Slot);
        Assert.Equal(68, SqliteApiSlots.Malloc.Slot);
        Assert.Equal(85, SqliteApiSlots.ResultText.Slot);
        Assert.Equal(119, SqliteApiSlots.CreateModuleV2.Slot);
        Assert.Equal(142, SqliteApiSlots.VfsRegister.Slot);
        Assert.Equal(162, SqliteApiSlots.CreateFunctionV2.Slot);
        Assert.Equal(177, SqliteApiSlots.VtabConfig.Slot);
        Assert.Equal(192, SqliteApiSlots.AutoExtension.Slot);
        Assert.Equal(259, SqliteApiSlots.VtabIn.Slot);
        Assert.Equal(261, SqliteApiSlots.VtabInNext.Slot);
        Assert.Equal(-1, SqliteApiSlots.Initialize.Slot); // not in the table
    }

    [Fact]
    public void Slots_are_distinct_and_inside_the_3_38_table()
    {
        var slots = AllSlots().Where(f => f.Slot >= 0).ToList();
        Assert.Equal(slots.Count, slots.Select(f => f.Slot).Distinct().Count());
        Assert.Equal(slots.Count, slots.Select(f => f.Export).Distinct().Count());
        Assert.All(slots, f => Assert.InRange(f.Slot, 0, 261)); // vtab_in_next, the last slot 3.38.0 added (EX1)
    }

    [Theory]
    [InlineData(3_037_002, "voron: SQLite 3.38.0 or newer is needed; this is 3.37.2")]
    [InlineData(3_008_007, "voron: SQLite 3.38.0 or newer is needed; this is 3.8.7")]
    [InlineData(3_038_000, null)]
    [InlineData(3_040_001, null)]
    [InlineData(3_050_004, null)]
    public void The_extension_refuses_sqlite_older_than_3_38(int version, string? refusal) =>
        Assert.Equal(refusal, SqliteVersionRule.Refusal(version));

    [Fact]
    public void After_binding_no_function_pointer_is_null()
    {
        SqliteNative.EnsureBound();

        var fields = typeof(SqliteNative).GetFields(BindingFlags.Static | BindingFlags.NonPublic)
            .Where(f => f.FieldType.IsFunctionPointer).ToList();
        Assert.NotEmpty(fields);
        Assert.All(fields, f => Assert.NotEqual(IntPtr.Zero, (IntPtr)f.GetValue(null)!));

        // Every field came from one named function, and every named function was bound.
        Assert.Equal(fields.Count, SqliteNative.BoundFunctions.Count);
        Assert.Equal(AllSlots().Select(f => f.Export).Order(), SqliteNative.BoundFunctions.Select(b => b.Function.Export).Order());
        Assert.All(SqliteNative.BoundFunctions, b => Assert.NotEqual(0, b.Address));
        Assert.True(SqliteNative.LibVersionNumber() >= SqliteVersionRule.Minimum);
    }

    [Fact]
    public void Loading_into_an_old_sqlite_fails_with_a_message_from_its_malloc()
    {
        SqliteNative.EnsureBound();
        var bound = SqliteNative.BoundFunctions;
        var library = NativeLibrary.Load("e_sqlite3", typeof(SqliteNative).Assembly, null);

        // A 3.37.2 table: its libversion_number slot says so; malloc and free are the real ones
        // (the message must be sqlite3_malloc's: SQLite frees it with sqlite3_free).
        VersionNumber version = () => 3_037_002;
        var table = new nint[SqliteApiSlots.VtabInNext.Slot + 1];
        table[SqliteApiSlots.LibVersionNumber.Slot] = Marshal.GetFunctionPointerForDelegate(version);
        table[SqliteApiSlots.Malloc.Slot] = NativeLibrary.GetExport(library, "sqlite3_malloc");
        table[SqliteApiSlots.Free.Slot] = NativeLibrary.GetExport(library, "sqlite3_free");
        var pinned = GCHandle.Alloc(table, GCHandleType.Pinned);
        try
        {
            Assert.Equal(1, SqliteNative.BindApiTable(pinned.AddrOfPinnedObject(), out var error)); // SQLITE_ERROR
            Assert.Equal("voron: SQLite 3.38.0 or newer is needed; this is 3.37.2", error);
        }
        finally
        {
            pinned.Free();
            GC.KeepAlive(version);
        }

        Assert.Same(bound, SqliteNative.BoundFunctions); // nothing was rebound
    }

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate int VersionNumber();

    private static IEnumerable<SqliteFunction> AllSlots() =>
        typeof(SqliteApiSlots).GetFields(BindingFlags.Static | BindingFlags.Public)
            .Where(f => f.FieldType == typeof(SqliteFunction))
            .Select(f => (SqliteFunction)f.GetValue(null)!);
}
