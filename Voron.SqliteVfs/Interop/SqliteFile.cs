using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop;

/// <summary>
/// Our <c>sqlite3_file</c> subclass: SQLite allocates <c>szOsFile</c> = sizeof(SqliteFile) bytes
/// and passes the block to xOpen, which fills it. <see cref="Methods"/> is set only on success
/// (SQLite calls xClose on a file whose pMethods is not null); <see cref="Handle"/> is a GCHandle
/// to the managed file object, freed by xClose.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct SqliteFile
{
    public SqliteIoMethods* Methods;
    public nint Handle;
}
