using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

internal static unsafe partial class IoCallbacks
{
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Lock(SqliteFile* file, int level)
    {
        try
        {
            return Resolve(file).Lock(level);
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, level == SqliteConstants.LockShared ? SqliteConstants.IoErrRdLock : SqliteConstants.IoErrLock);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Unlock(SqliteFile* file, int level)
    {
        try
        {
            return Resolve(file).Unlock(level);
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrUnlock);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int CheckReservedLock(SqliteFile* file, int* result)
    {
        try
        {
            *result = Resolve(file).IsReservedByAnother ? 1 : 0;
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrLock);
        }
    }
}
