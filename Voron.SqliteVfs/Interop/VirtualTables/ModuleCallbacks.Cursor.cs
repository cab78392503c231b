using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>xOpen, xClose, xFilter, xNext, xEof, xColumn, xRowid.</summary>
internal static unsafe partial class ModuleCallbacks
{
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Open(SqliteVtab* vtab, SqliteVtabCursor** cursor)
    {
        try
        {
            var managed = TableOf(vtab).OpenCursor();
            var native = (SqliteVtabCursor*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteVtabCursor)); // SQLite sets pVtab
            native->Handle = GCHandle.ToIntPtr(GCHandle.Alloc(managed));
            *cursor = native;
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(vtab, e);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Close(SqliteVtabCursor* cursor)
    {
        var vtab = cursor->Vtab;
        var handle = GCHandle.FromIntPtr(cursor->Handle);
        try
        {
            ((VirtualTableCursor)handle.Target!).Close();
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(vtab, e);
        }
        finally
        {
            handle.Free();
            NativeMemory.Free(cursor);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Filter(SqliteVtabCursor* cursor, int indexNumber, byte* indexString, int argc, nint* argv)
    {
        try
        {
            CursorOf(cursor).Filter(indexNumber, SqliteNative.Utf8String(indexString), new ReadOnlySpan<SqliteValue>(argv, argc));
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(cursor->Vtab, e);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Next(SqliteVtabCursor* cursor)
    {
        try
        {
            CursorOf(cursor).Next();
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(cursor->Vtab, e);
        }
    }

    /// <summary>
    /// xEof answers a boolean, not a result code: SQLite has no way to hear an error here. An
    /// exception ends the scan (answers true) and is recorded for LastError; a cursor should do
    /// its failing work in Filter / Next, where the error fails the statement.
    /// </summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Eof(SqliteVtabCursor* cursor)
    {
        try
        {
            return CursorOf(cursor).Eof ? 1 : 0;
        }
        catch (Exception e)
        {
            _ = Describe(e);
            return 1;
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Column(SqliteVtabCursor* cursor, nint context, int column)
    {
        try
        {
            CursorOf(cursor).Column(new ResultContext(context), column);
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(cursor->Vtab, e);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Rowid(SqliteVtabCursor* cursor, long* rowId)
    {
        try
        {
            *rowId = CursorOf(cursor).RowId;
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(cursor->Vtab, e);
        }
    }
}
