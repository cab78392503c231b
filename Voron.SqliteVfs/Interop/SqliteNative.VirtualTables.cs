using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Interop;

/// <summary>The virtual-table API: module registration, xCreate/xConnect helpers, planning helpers.</summary>
internal static unsafe partial class SqliteNative
{
    [LibraryImport(Library, EntryPoint = "sqlite3_free")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial void Free(void* memory);

    [LibraryImport(Library, EntryPoint = "sqlite3_errmsg")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial byte* ErrorMessage(nint db);

    [LibraryImport(Library, EntryPoint = "sqlite3_create_module_v2")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int CreateModule(nint db, byte* name, SqliteModuleStruct* module, void* clientData, void* destroy);

    /// <summary>The parameter is really <c>void(*)(void)</c>; SQLite calls it as <c>int(sqlite3*, char**, const sqlite3_api_routines*)</c>.</summary>
    [LibraryImport(Library, EntryPoint = "sqlite3_auto_extension")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int AutoExtension(void* entryPoint);

    [LibraryImport(Library, EntryPoint = "sqlite3_declare_vtab")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int DeclareVtab(nint db, byte* createTable);

    /// <summary>
    /// sqlite3_vtab_config(db, op, ...) is VARIADIC. This fixed (int, int) binding passes the
    /// int argument where a variadic call would on Linux x64 and Linux arm64 (checked there,
    /// /work/shared/reference/sqlite-vtab.md) and on Windows x64; it is WRONG on Apple arm64,
    /// where variadic arguments go on the stack: callers must not use it there
    /// (<see cref="VtabConfigIsSafe"/>).
    /// </summary>
    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_config")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabConfig(nint db, int op, int value);

    /// <summary>False on Apple arm64, where the fixed-argument <see cref="VtabConfig"/> would pass its value wrongly.</summary>
    public static bool VtabConfigIsSafe =>
        !(OperatingSystem.IsMacOS() || OperatingSystem.IsIOS() || OperatingSystem.IsTvOS() || OperatingSystem.IsMacCatalyst())
        || RuntimeInformation.ProcessArchitecture != Architecture.Arm64;

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_on_conflict")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabOnConflict(nint db);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_collation")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial byte* VtabCollation(SqliteIndexInfoStruct* info, int constraint);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_rhs_value")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabRhsValue(SqliteIndexInfoStruct* info, int constraint, nint* value);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_in")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabIn(SqliteIndexInfoStruct* info, int constraint, int handle);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_distinct")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabDistinct(SqliteIndexInfoStruct* info);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_in_first")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabInFirst(nint list, nint* value);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_in_next")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabInNext(nint list, nint* value);

    [LibraryImport(Library, EntryPoint = "sqlite3_vtab_nochange")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VtabNoChange(nint context);

    [LibraryImport(Library, EntryPoint = "sqlite3_file_control")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int FileControl(nint db, byte* schema, int op, void* argument);

    /// <summary>Copies a NUL-terminated UTF-8 string SQLite handed over (null gives null).</summary>
    public static string? Utf8String(byte* text) => text == null ? null : Marshal.PtrToStringUTF8((nint)text);
}
