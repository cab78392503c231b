using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop.VirtualTables;
using S = Voron.SqliteVfs.Interop.SqliteApiSlots;

namespace Voron.SqliteVfs.Interop;

// EX2. Every function-pointer field of SqliteNative is set before its first call, once, by one
//      of two binders, and never changes afterwards (the first binder wins):
//      - EnsureBound (the process library, what Microsoft.Data.Sqlite loaded), called by every
//        entry point that can be the first to reach SQLite: VoronSqlite.Register and
//        VirtualTableRegistry.Register / RegisterOnEveryConnection. Everything else that calls
//        SqliteNative runs inside a callback of a VFS or module those registered;
//      - BindApiTable (the extension's sqlite3_api_routines), called by the extension's entry
//        point before anything else, after checking the version (EX1).
//      A null field would crash the process at its call, so both binders fail (throw, or refuse
//      the load) when a function is missing, and set s_bound only after every field is set.

/// <summary>Fills the function-pointer fields (EX2) from the process library or an extension's API table.</summary>
internal static unsafe partial class SqliteNative
{
    private static readonly Lock s_binding = new();
    private static volatile bool s_bound;
    private static List<(SqliteFunction Function, nint Address)> s_boundFunctions = [];

    /// <summary>Where the functions came from ("e_sqlite3", "sqlite3_api_routines"), or null before binding.</summary>
    public static string? BoundFrom { get; private set; }

    /// <summary>What was bound, in binding order (for tests: every field, none null).</summary>
    public static IReadOnlyList<(SqliteFunction Function, nint Address)> BoundFunctions => s_boundFunctions;

    /// <summary>Binds the process library (what Microsoft.Data.Sqlite uses) unless something is bound already.</summary>
    public static void EnsureBound()
    {
        if (s_bound)
        {
            return;
        }

        lock (s_binding)
        {
            if (s_bound)
            {
                return;
            }

            // The resolution LibraryImport("e_sqlite3") used: the module SQLitePCLRaw loaded already.
            var library = NativeLibrary.Load("e_sqlite3", typeof(SqliteNative).Assembly, null);
            Bind(function => NativeLibrary.GetExport(library, function.Export), "e_sqlite3");
        }
    }

    /// <summary>
    /// The extension's binder: refuses a SQLite older than <see cref="SqliteVersionRule.Minimum"/>
    /// (setting <paramref name="error"/> to memory from the table's sqlite3_malloc, as SQLite
    /// expects of an entry point) or binds every field from <paramref name="api"/>.
    /// </summary>
    /// <returns>SQLITE_OK, or SQLITE_ERROR with <paramref name="error"/> set.</returns>
    public static int BindApiTable(void* api, byte** error)
    {
        var table = (nint*)api;
        try
        {
            var version = ((delegate* unmanaged[Cdecl]<int>)table[S.LibVersionNumber.Slot])();
            if (SqliteVersionRule.Refusal(version) is { } refusal)
            {
                *error = TableString(table, refusal);
                return SqliteConstants.Error;
            }

            lock (s_binding)
            {
                if (!s_bound)
                {
                    Bind(function => FromTable(table, function), "sqlite3_api_routines");
                }
            }

            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            *error = TableString(table, $"voron: binding SQLite's API failed: {e.Message}");
            return SqliteConstants.Error;
        }
    }

    /// <summary>
    /// <see cref="BindApiTable(void*, byte**)"/> for callers without pointers (tests): the
    /// message is copied out and freed with the table's sqlite3_free, as SQLite would free it.
    /// </summary>
    public static int BindApiTable(nint api, out string? error)
    {
        byte* message = null;
        var rc = BindApiTable((void*)api, &message);
        error = Utf8String(message);
        if (message != null)
        {
            ((delegate* unmanaged[Cdecl]<void*, void>)((nint*)api)[S.Free.Slot])(message);
        }

        return rc;
    }

    private static nint FromTable(nint* table, SqliteFunction function)
    {
        if (function.Slot < 0)
        {
            return (nint)(delegate* unmanaged[Cdecl]<int>)&AlreadyInitialized;
        }

        var address = table[function.Slot];
        return address != 0 ? address : throw new InvalidOperationException($"SQLite's API table has no {function.Export} (slot {function.Slot}).");
    }

    /// <summary>Stands in for sqlite3_initialize in an extension: SQLite initialized itself before loading it.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int AlreadyInitialized() => SqliteConstants.Ok;

    private static byte* TableString(nint* table, string text)
    {
        var malloc = (delegate* unmanaged[Cdecl]<int, byte*>)table[S.Malloc.Slot];
        var bytes = System.Text.Encoding.UTF8.GetBytes(text);
        var memory = malloc(bytes.Length + 1);
        if (memory != null)
        {
            bytes.CopyTo(new Span<byte>(memory, bytes.Length));
            memory[bytes.Length] = 0;
        }

        return memory;
    }

    /// <summary>Sets every field (EX2); called under s_binding, before s_bound.</summary>
    private static void Bind(Func<SqliteFunction, nint> resolve, string source)
    {
        var bound = new List<(SqliteFunction, nint)>();
        nint Get(SqliteFunction function)
        {
            var address = resolve(function);
            if (address == 0)
            {
                throw new InvalidOperationException($"{source} has no {function.Export}.");
            }

            bound.Add((function, address));
            return address;
        }

        s_initialize = (delegate* unmanaged[Cdecl]<int>)Get(S.Initialize);
        s_vfsRegister = (delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int>)Get(S.VfsRegister);
        s_vfsUnregister = (delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int>)Get(S.VfsUnregister);
        s_vfsFind = (delegate* unmanaged[Cdecl]<byte*, SqliteVfsStruct*>)Get(S.VfsFind);
        s_malloc = (delegate* unmanaged[Cdecl]<int, byte*>)Get(S.Malloc);
        s_libVersionNumber = (delegate* unmanaged[Cdecl]<int>)Get(S.LibVersionNumber);

        s_valueType = (delegate* unmanaged[Cdecl]<nint, int>)Get(S.ValueType);
        s_valueInt64 = (delegate* unmanaged[Cdecl]<nint, long>)Get(S.ValueInt64);
        s_valueDouble = (delegate* unmanaged[Cdecl]<nint, double>)Get(S.ValueDouble);
        s_valueText = (delegate* unmanaged[Cdecl]<nint, byte*>)Get(S.ValueText);
        s_valueBlob = (delegate* unmanaged[Cdecl]<nint, byte*>)Get(S.ValueBlob);
        s_valueBytes = (delegate* unmanaged[Cdecl]<nint, int>)Get(S.ValueBytes);
        s_valueNoChange = (delegate* unmanaged[Cdecl]<nint, int>)Get(S.ValueNoChange);
        s_resultNull = (delegate* unmanaged[Cdecl]<nint, void>)Get(S.ResultNull);
        s_resultInt64 = (delegate* unmanaged[Cdecl]<nint, long, void>)Get(S.ResultInt64);
        s_resultDouble = (delegate* unmanaged[Cdecl]<nint, double, void>)Get(S.ResultDouble);
        s_resultText = (delegate* unmanaged[Cdecl]<nint, byte*, int, nint, void>)Get(S.ResultText);
        s_resultBlob = (delegate* unmanaged[Cdecl]<nint, byte*, int, nint, void>)Get(S.ResultBlob);
        s_resultZeroBlob = (delegate* unmanaged[Cdecl]<nint, int, void>)Get(S.ResultZeroBlob);
        s_resultError = (delegate* unmanaged[Cdecl]<nint, byte*, int, void>)Get(S.ResultError);

        s_free = (delegate* unmanaged[Cdecl]<void*, void>)Get(S.Free);
        s_errorMessage = (delegate* unmanaged[Cdecl]<nint, byte*>)Get(S.ErrorMessage);
        s_createModule = (delegate* unmanaged[Cdecl]<nint, byte*, SqliteModuleStruct*, void*, void*, int>)Get(S.CreateModuleV2);
        s_autoExtension = (delegate* unmanaged[Cdecl]<void*, int>)Get(S.AutoExtension);
        s_declareVtab = (delegate* unmanaged[Cdecl]<nint, byte*, int>)Get(S.DeclareVtab);
        s_vtabConfig = (delegate* unmanaged[Cdecl]<nint, int, int, int>)Get(S.VtabConfig);
        s_vtabOnConflict = (delegate* unmanaged[Cdecl]<nint, int>)Get(S.VtabOnConflict);
        s_vtabCollation = (delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int, byte*>)Get(S.VtabCollation);
        s_vtabRhsValue = (delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int, nint*, int>)Get(S.VtabRhsValue);
        s_vtabIn = (delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int, int, int>)Get(S.VtabIn);
        s_vtabDistinct = (delegate* unmanaged[Cdecl]<SqliteIndexInfoStruct*, int>)Get(S.VtabDistinct);
        s_vtabInFirst = (delegate* unmanaged[Cdecl]<nint, nint*, int>)Get(S.VtabInFirst);
        s_vtabInNext = (delegate* unmanaged[Cdecl]<nint, nint*, int>)Get(S.VtabInNext);
        s_vtabNoChange = (delegate* unmanaged[Cdecl]<nint, int>)Get(S.VtabNoChange);
        s_fileControl = (delegate* unmanaged[Cdecl]<nint, byte*, int, void*, int>)Get(S.FileControl);
        s_nextStmt = (delegate* unmanaged[Cdecl]<nint, nint, nint>)Get(S.NextStmt);
        s_stmtBusy = (delegate* unmanaged[Cdecl]<nint, int>)Get(S.StmtBusy);

        s_createFunction = (delegate* unmanaged[Cdecl]<nint, byte*, int, int, void*, void*, void*, void*, void*, int>)Get(S.CreateFunctionV2);

        s_boundFunctions = bound;
        BoundFrom = source;
        s_bound = true;
    }
}
