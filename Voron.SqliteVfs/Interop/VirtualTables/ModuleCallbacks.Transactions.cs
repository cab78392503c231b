using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// xBegin, xSync, xCommit, xRollback, xSavepoint, xRelease, xRollbackTo. The order SQLite calls
/// them in is recorded by VirtualTableTransactionTests (and written down there). SQLite ignores
/// the result of xCommit and xRollback; anything that can fail a COMMIT must fail in xSync.
/// </summary>
internal static unsafe partial class ModuleCallbacks
{
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Begin(SqliteVtab* vtab) => Run(vtab, static t => t.Begin());

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Sync(SqliteVtab* vtab) => Run(vtab, static t => t.Sync());

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Commit(SqliteVtab* vtab) => Run(vtab, static t => t.Commit());

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Rollback(SqliteVtab* vtab) => Run(vtab, static t => t.Rollback());

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Savepoint(SqliteVtab* vtab, int level) => Run(vtab, level, static (t, l) => t.Savepoint(l));

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Release(SqliteVtab* vtab, int level) => Run(vtab, level, static (t, l) => t.Release(l));

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int RollbackTo(SqliteVtab* vtab, int level) => Run(vtab, level, static (t, l) => t.RollbackTo(l));

    private static int Run(SqliteVtab* vtab, Action<VirtualTable> action)
    {
        try
        {
            action(TableOf(vtab));
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(vtab, e);
        }
    }

    private static int Run(SqliteVtab* vtab, int level, Action<VirtualTable, int> action)
    {
        try
        {
            action(TableOf(vtab), level);
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return Fail(vtab, e);
        }
    }
}
