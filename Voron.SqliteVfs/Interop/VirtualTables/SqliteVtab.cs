using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// Our <c>sqlite3_vtab</c> subclass (32 bytes): SQLite's three members {pModule, nRef, zErrMsg}
/// then a GCHandle to the managed <see cref="VirtualTable"/>. xCreate / xConnect allocate it
/// zeroed (SQLite sets pModule afterwards); xDisconnect, or a successful xDestroy, frees it.
/// <see cref="ErrorMessage"/> is sqlite3_malloc'd: SQLite copies it into the statement's error
/// after a callback fails and frees it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteVtab
{
    public SqliteModuleStruct* Module;
    public int RefCount;
    public byte* ErrorMessage;
    public nint Handle;
}
