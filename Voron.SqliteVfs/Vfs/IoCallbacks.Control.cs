using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

internal static unsafe partial class IoCallbacks
{
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int FileControl(SqliteFile* file, int op, void* argument)
    {
        try
        {
            return Resolve(file).FileControl(op, argument);
        }
        catch (Exception e)
        {
            // Only the commit (COMMIT_PHASETWO) does work that can fail: its store commit.
            return ErrorCodes.From(e, SqliteConstants.IoErrWrite);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int SectorSize(SqliteFile* file)
    {
        try
        {
            return Resolve(file).SectorSize;
        }
        catch (Exception e)
        {
            ErrorCodes.From(e, SqliteConstants.IoErr);
            return 512;
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int DeviceCharacteristics(SqliteFile* file)
    {
        try
        {
            return Resolve(file).DeviceCharacteristics;
        }
        catch (Exception e)
        {
            ErrorCodes.From(e, SqliteConstants.IoErr);
            return 0;
        }
    }
}
