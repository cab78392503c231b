using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

internal static unsafe partial class IoCallbacks
{
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Read(SqliteFile* file, byte* buffer, int amount, long offset)
    {
        try
        {
            return Resolve(file).Read(new Span<byte>(buffer, amount), offset);
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrRead);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Write(SqliteFile* file, byte* buffer, int amount, long offset)
    {
        try
        {
            Resolve(file).Write(new ReadOnlySpan<byte>(buffer, amount), offset);
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrWrite);
        }
    }

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Truncate(SqliteFile* file, long size)
    {
        try
        {
            Resolve(file).Truncate(size);
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrTruncate);
        }
    }

    /// <summary>Durability is the commit's (V7): nothing to do.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Sync(SqliteFile* file, int flags) => SqliteConstants.Ok;

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int FileSize(SqliteFile* file, long* size)
    {
        try
        {
            *size = Resolve(file).Size;
            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrFstat);
        }
    }
}
