using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop;

/// <summary>
/// <c>sqlite3_vfs</c> (sqlite3.h), version 2: 168 bytes on 64-bit, offsets asserted by
/// SqliteStructLayoutTests. Lives in native memory for as long as it is registered.
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
    public void* DlOpen;
    public void* DlError;
    public void* DlSym;
    public void* DlClose;
    public void* Randomness;
    public void* Sleep;
    public void* CurrentTime;
    public void* GetLastError;
    public void* CurrentTimeInt64;
    public void* SetSystemCall;
    public void* GetSystemCall;
    public void* NextSystemCall;
}
