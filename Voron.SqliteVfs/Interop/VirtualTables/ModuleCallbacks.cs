using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// The sqlite3_module entry points. Each finds the managed object behind the native struct
/// (the module through pClientData, the table through <see cref="SqliteVtab.Handle"/>, the
/// cursor through <see cref="SqliteVtabCursor.Handle"/>), calls it, and turns every exception
/// into a result code and a message (<see cref="Fail(SqliteVtab*, Exception)"/>): an exception
/// escaping an UnmanagedCallersOnly method would end the process. Grouped by concern:
/// ModuleCallbacks.Table.cs (xCreate .. xRename), ModuleCallbacks.Cursor.cs (xOpen .. xRowid),
/// ModuleCallbacks.Transactions.cs (xBegin .. xRollbackTo).
///
/// Error rules:
/// VT1. A <see cref="VirtualTableException"/> answers its Code and Message; any other exception
///       answers SQLITE_ERROR with its Message.
/// VT2. The message goes into the vtab's zErrMsg (sqlite3_malloc'd; SQLite copies it into the
///       statement's error and frees it; a previous one is freed first), or for xCreate /
///       xConnect into *pzErr.
/// VT3. The exception is recorded for VoronSqlite.LastError (ErrorCodes.Note): the INNER
///       exception of a VirtualTableException that has one (the ConcurrencyException behind a
///       failed commit), else the exception itself.
/// </summary>
internal static unsafe partial class ModuleCallbacks
{
    /// <summary>A new native sqlite3_module (iVersion 3) over these callbacks, in native memory that is never freed.</summary>
    public static SqliteModuleStruct* CreateModule(bool eponymousOnly)
    {
        var module = (SqliteModuleStruct*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteModuleStruct));
        module->Version = 3; // xSavepoint/xRelease/xRollbackTo (2), xShadowName (3, null); xIntegrity (4) not offered
        module->Create = eponymousOnly ? null : &Create; // null xCreate: eponymous-only
        module->Connect = &Connect;
        module->BestIndex = &BestIndex;
        module->Disconnect = &Disconnect;
        module->Destroy = &Destroy;
        module->Open = &Open;
        module->Close = &Close;
        module->Filter = &Filter;
        module->Next = &Next;
        module->Eof = &Eof;
        module->Column = &Column;
        module->Rowid = &Rowid;
        module->Update = &Update;
        module->Begin = &Begin;
        module->Sync = &Sync;
        module->Commit = &Commit;
        module->Rollback = &Rollback;
        module->Rename = &Rename;
        module->Savepoint = &Savepoint;
        module->Release = &Release;
        module->RollbackTo = &RollbackTo;
        return module;
    }

    private static VirtualTable TableOf(SqliteVtab* vtab) => (VirtualTable)GCHandle.FromIntPtr(vtab->Handle).Target!;

    private static VirtualTableCursor CursorOf(SqliteVtabCursor* cursor) => (VirtualTableCursor)GCHandle.FromIntPtr(cursor->Handle).Target!;

    /// <summary>VT1-VT3 for a callback on a live vtab.</summary>
    private static int Fail(SqliteVtab* vtab, Exception error)
    {
        var (code, message) = Describe(error);
        SetMessage(&vtab->ErrorMessage, message);
        return code;
    }

    /// <summary>VT1 and VT3: the result code and message for <paramref name="error"/>, recorded for LastError. Never throws.</summary>
    private static (int Code, string Message) Describe(Exception error)
    {
        try
        {
            ErrorCodes.Note(error is VirtualTableException { InnerException: { } inner } ? inner : error);
            var code = error is VirtualTableException v ? v.Code : SqliteConstants.Error;
            return (code == SqliteConstants.Ok ? SqliteConstants.Error : code, error.Message);
        }
        catch
        {
            return (SqliteConstants.Error, "A virtual-table callback failed.");
        }
    }

    /// <summary>VT2: replaces *<paramref name="slot"/> with a sqlite3_malloc'd copy of <paramref name="message"/>.</summary>
    private static void SetMessage(byte** slot, string message)
    {
        if (*slot != null)
        {
            SqliteNative.Free(*slot);
        }

        *slot = null;
        try
        {
            *slot = SqliteNative.MallocString(message); // null when out of memory: SQLite then shows the code's own text
        }
        catch
        {
            // Encoding failed: leave no message rather than let anything cross into native code.
        }
    }
}
