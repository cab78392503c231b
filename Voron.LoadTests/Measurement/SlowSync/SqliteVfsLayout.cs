using System.Runtime.InteropServices;

namespace Voron.LoadTests.Measurement.SlowSync;

// The three structs of SQLite's OS interface (sqlite3.h) that a pass-through VFS touches, in
// their 64-bit layouts; SlowSyncVfsTests assert the sizes. Only what this program needs: the
// functions are declared as the C prototypes give them and called with the first argument the
// object they belong to.

/// <summary>
/// <c>sqlite3_vfs</c>, version 3: 168 bytes. SQLite reads <see cref="Version"/> before it calls
/// a method of a later version (xCurrentTimeInt64 from 2, the system-call methods from 3).
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteVfsStruct
{
    public int Version;
    public int OsFileSize;
    public int MaxPathname;
    public SqliteVfsStruct* Next;
    public byte* Name;
    public void* AppData;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, SqliteFile*, int, int*, int> Open;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, int, int> Delete;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, int, int*, int> Access;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, int, byte*, int> FullPathname;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, void*> DlOpen;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, byte*, void> DlError;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, void*, byte*, void*> DlSym;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, void*, void> DlClose;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, byte*, int> Randomness;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int> Sleep;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, double*, int> CurrentTime;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, byte*, int> GetLastError;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, long*, int> CurrentTimeInt64;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, void*, int> SetSystemCall;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, void*> GetSystemCall;
    public delegate* unmanaged[Cdecl]<SqliteVfsStruct*, byte*, byte*> NextSystemCall;
}

/// <summary>
/// <c>sqlite3_io_methods</c>, version 3: 152 bytes. A file's methods of version 1 have no xShm*
/// (SQLite then keeps no WAL on it), of version 2 no xFetch / xUnfetch (no memory-mapped I/O).
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteIoMethods
{
    public int Version;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int> Close;
    public delegate* unmanaged[Cdecl]<SqliteFile*, void*, int, long, int> Read;
    public delegate* unmanaged[Cdecl]<SqliteFile*, void*, int, long, int> Write;
    public delegate* unmanaged[Cdecl]<SqliteFile*, long, int> Truncate;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> Sync;
    public delegate* unmanaged[Cdecl]<SqliteFile*, long*, int> FileSize;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> Lock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> Unlock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int*, int> CheckReservedLock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, void*, int> FileControl;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int> SectorSize;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int> DeviceCharacteristics;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int, int, void**, int> ShmMap;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int, int, int> ShmLock;
    public delegate* unmanaged[Cdecl]<SqliteFile*, void> ShmBarrier;
    public delegate* unmanaged[Cdecl]<SqliteFile*, int, int> ShmUnmap;
    public delegate* unmanaged[Cdecl]<SqliteFile*, long, int, void**, int> Fetch;
    public delegate* unmanaged[Cdecl]<SqliteFile*, long, void*, int> Unfetch;
}

/// <summary><c>sqlite3_file</c>: the base every VFS's file begins with, its io methods (null: not open).</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteFile
{
    public SqliteIoMethods* Methods;
}

/// <summary>
/// FORMAT: the block SQLite allocates for a file of <see cref="SlowSyncVfs"/> (its szOsFile):
/// <code>
/// OFFSET SIZE       NAME    MEANING
/// 0      8          Methods this VFS's io methods (the sqlite3_file base), null until the inner open succeeds
/// 8      8          Owner   GCHandle of the SlowSyncVfs that opened it (its delay and its count)
/// 16     inner's    Inner   the default VFS's own file, which every io method is passed on to
/// </code>
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SlowSyncFile
{
    public SqliteIoMethods* Methods;
    public nint Owner;

    /// <summary>The default VFS's file, right after this header (16 bytes: its 8-byte alignment is kept).</summary>
    public static SqliteFile* Inner(SqliteFile* file) => (SqliteFile*)((byte*)file + sizeof(SlowSyncFile));
}
