using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>
/// Our <c>sqlite3_vtab_cursor</c> subclass (16 bytes): SQLite's pVtab (which SQLite sets after
/// xOpen returns) then a GCHandle to the managed <see cref="VirtualTableCursor"/>. xOpen
/// allocates it, xClose frees it.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteVtabCursor
{
    public SqliteVtab* Vtab;
    public nint Handle;
}
