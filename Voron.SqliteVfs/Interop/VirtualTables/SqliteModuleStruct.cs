using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// <c>sqlite3_module</c> (sqlite3.h): 200 bytes on 64-bit with every member up to iVersion 4's
/// xIntegrity, offsets asserted by VirtualTableStructLayoutTests. The registry fills iVersion 3
/// (xSavepoint, xRelease, xRollbackTo; xShadowName null; xIntegrity not read at version 3) and
/// allocates the whole struct. SQLite keeps the pointer for as long as any connection has the
/// module, so it is never freed.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteModuleStruct
{
    public int Version;
    public delegate* unmanaged[Cdecl]<nint, void*, int, byte**, SqliteVtab**, byte**, int> Create;
    public delegate* unmanaged[Cdecl]<nint, void*, int, byte**, SqliteVtab**, byte**, int> Connect;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, SqliteIndexInfoStruct*, int> BestIndex;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int> Disconnect;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int> Destroy;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, SqliteVtabCursor**, int> Open;
    public delegate* unmanaged[Cdecl]<SqliteVtabCursor*, int> Close;
    public delegate* unmanaged[Cdecl]<SqliteVtabCursor*, int, byte*, int, nint*, int> Filter;
    public delegate* unmanaged[Cdecl]<SqliteVtabCursor*, int> Next;
    public delegate* unmanaged[Cdecl]<SqliteVtabCursor*, int> Eof;
    public delegate* unmanaged[Cdecl]<SqliteVtabCursor*, nint, int, int> Column;
    public delegate* unmanaged[Cdecl]<SqliteVtabCursor*, long*, int> Rowid;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int, nint*, long*, int> Update;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int> Begin;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int> Sync;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int> Commit;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int> Rollback;
    public void* FindFunction;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, byte*, int> Rename;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int, int> Savepoint;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int, int> Release;
    public delegate* unmanaged[Cdecl]<SqliteVtab*, int, int> RollbackTo;
    public void* ShadowName;
    public void* Integrity;
}
