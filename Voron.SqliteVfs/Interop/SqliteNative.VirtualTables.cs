using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Interop;

/// <summary>The virtual-table API: module registration, xCreate/xConnect helpers, planning helpers.</summary>
internal static unsafe partial class SqliteNative
{
    private static delegate* unmanaged[Cdecl]<void*, void> s_free;
    private static delegate* unmanaged[Cdecl]<nint, byte*> s_errorMessage;
    private static delegate* unmanaged[Cdecl]<nint, byte*, SqliteModuleStruct*, void*, void*, int> s_createModule;
    private static delegate* unmanaged[Cdecl]<void*, int> s_autoExtension;
    private static delegate* unmanaged[Cdecl]<nint, byte*, int> s_declareVtab;
    private static delegate* unmanaged[Cdecl]<nint, int, int, int> s_vtabConfig;
    private static delegate* unmanaged[Cdecl]<nint, int> s_vtabOnConflict;
    private static delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int, byte*> s_vtabCollation;
    private static delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int, nint*, int> s_vtabRhsValue;
    private static delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int, int, int> s_vtabIn;
    private static delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int> s_vtabDistinct;
    private static delegate* unmanaged[Cdecl]<nint, nint*, int> s_vtabInFirst;
    private static delegate* unmanaged[Cdecl]<nint, nint*, int> s_vtabInNext;
    private static delegate* unmanaged[Cdecl]<nint, int> s_vtabNoChange;
    private static delegate* unmanaged[Cdecl]<nint, byte*, int, void*, int> s_fileControl;

    public static void Free(void* memory) => s_free(memory);

    public static byte* ErrorMessage(nint db) => s_errorMessage(db);

    public static int CreateModule(nint db, byte* name, SqliteModuleStruct* module, void* clientData, void* destroy) =>
        s_createModule(db, name, module, clientData, destroy);

    /// <summary>The parameter is really <c>void(*)(void)</c>; SQLite calls it as <c>int(sqlite3*, char**, const sqlite3_api_routines*)</c>.</summary>
    public static int AutoExtension(void* entryPoint) => s_autoExtension(entryPoint);

    public static int DeclareVtab(nint db, byte* createTable) => s_declareVtab(db, createTable);

    /// <summary>
    /// sqlite3_vtab_config(db, op, ...) is VARIADIC. This fixed (int, int) pointer type passes the
    /// int argument where a variadic call would on Linux x64 and Linux arm64 (checked there,
    /// /work/shared/reference/sqlite-vtab.md) and on Windows x64; it is WRONG on Apple arm64,
    /// where variadic arguments go on the stack: callers must not use it there
    /// (<see cref="VtabConfigIsSafe"/>). The same holds for the extension API table's slot.
    /// </summary>
    public static int VtabConfig(nint db, int op, int value) => s_vtabConfig(db, op, value);

    /// <summary>False on Apple arm64, where the fixed-argument <see cref="VtabConfig"/> would pass its value wrongly.</summary>
    public static bool VtabConfigIsSafe =>
        !(OperatingSystem.IsMacOS() || OperatingSystem.IsIOS() || OperatingSystem.IsTvOS() || OperatingSystem.IsMacCatalyst())
        || RuntimeInformation.ProcessArchitecture != Architecture.Arm64;

    public static int VtabOnConflict(nint db) => s_vtabOnConflict(db);

    public static byte* VtabCollation(SqliteIndexInfoStruct* info, int constraint) => s_vtabCollation(info, constraint);

    public static int VtabRhsValue(SqliteIndexInfoStruct* info, int constraint, nint* value) => s_vtabRhsValue(info, constraint, value);

    public static int VtabIn(SqliteIndexInfoStruct* info, int constraint, int handle) => s_vtabIn(info, constraint, handle);

    public static int VtabDistinct(SqliteIndexInfoStruct* info) => s_vtabDistinct(info);

    public static int VtabInFirst(nint list, nint* value) => s_vtabInFirst(list, value);

    public static int VtabInNext(nint list, nint* value) => s_vtabInNext(list, value);

    public static int VtabNoChange(nint context) => s_vtabNoChange(context);

    public static int FileControl(nint db, byte* schema, int op, void* argument) => s_fileControl(db, schema, op, argument);

    /// <summary>Copies a NUL-terminated UTF-8 string SQLite handed over (null gives null).</summary>
    public static string? Utf8String(byte* text) => text == null ? null : Marshal.PtrToStringUTF8((nint)text);
}
