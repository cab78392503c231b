using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop;

/// <summary>
/// <c>sqlite3_io_methods</c> (sqlite3.h): 152 bytes on 64-bit. The VFS fills version 1 only (no
/// xShm*: SQLite then cannot use WAL; no xFetch: no memory-mapped I/O through SQLite).
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteIoMethods
{
    public int Version;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int> Close;
    public delegate* unmanaged[Cdecl]<SqliteFile*, byte*, int, long, int> Read;
    public delegate* unmanaged[Cdecl]<SqliteFile*, byte*, int, long, int> Write;
    public delegate* unmanaged[Cdecl]<SqliteFile*, long, int> Truncate;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> Sync;
    public delegate* unmanaged[Cdecl]<SqliteFile*, long*, int> FileSize;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> Lock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> Unlock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int*, int> CheckReservedLock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, void*, int> FileControl;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int> SectorSize;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int> DeviceCharacteristics;
    public void* ShmMap;
    public void* ShmLock;
    public void* ShmBarrier;
    public void* ShmUnmap;
    public void* Fetch;
    public void* Unfetch;
}
