using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// The sqlite3_io_methods entry points: each resolves the managed <see cref="VfsFile"/> behind
/// the sqlite3_file and turns every exception into a result code (ErrorCodes) — an exception
/// escaping an UnmanagedCallersOnly method would end the process. Grouped by concern in
/// IoCallbacks.ReadWrite.cs, IoCallbacks.Locking.cs and IoCallbacks.Control.cs.
/// </summary>
internal static unsafe partial class IoCallbacks
{
    private static readonly nint s_methods = CreateMethods();

    /// <summary>The one sqlite3_io_methods of the process (version 1), in native memory that is never freed.</summary>
    public static SqliteIoMethods* Methods => (SqliteIoMethods*)s_methods;

    private static nint CreateMethods()
    {
        var methods = (SqliteIoMethods*)NativeMemory.AllocZeroed((nuint)sizeof(SqliteIoMethods));
        methods->Version = 1; // no xShm*: no WAL (V11); no xFetch: no mmap through SQLite
        methods->Close = &Close;
        methods->Read = &Read;
        methods->Write = &Write;
        methods->Truncate = &Truncate;
        methods->Sync = &Sync;
        methods->FileSize = &FileSize;
        methods->Lock = &Lock;
        methods->Unlock = &Unlock;
        methods->CheckReservedLock = &CheckReservedLock;
        methods->FileControl = &FileControl;
        methods->SectorSize = &SectorSize;
        methods->DeviceCharacteristics = &DeviceCharacteristics;
        return (nint)methods;
    }

    internal static VfsFile Resolve(SqliteFile* file) => (VfsFile)GCHandle.FromIntPtr(file->Handle).Target!;

    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int Close(SqliteFile* file)
    {
        try
        {
            var handle = GCHandle.FromIntPtr(file->Handle);
            var managed = (VfsFile)handle.Target!;
            file->Methods = null;
            file->Handle = 0;
            handle.Free();
            try
            {
                managed.Close();
            }
            finally
            {
                managed.Owner?.FileClosed();
            }

            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            return ErrorCodes.From(e, SqliteConstants.IoErrClose);
        }
    }
}
