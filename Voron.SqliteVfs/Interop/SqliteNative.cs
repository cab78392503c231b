namespace Voron.SqliteVfs.Interop;

/// <summary>
/// The few functions of SQLite's C API the VFS and the virtual-table modules need, called through
/// function pointers (fields below) rather than imports, because two different SQLites may be
/// the one to call (SqliteNative.Binding.cs):
/// <list type="bullet">
/// <item>in a .NET process, the native library Microsoft.Data.Sqlite loads: SQLitePCLRaw's
/// e_sqlite3 provider loads "e_sqlite3", and resolving that name again returns the module already
/// loaded, so a VFS registered here is visible to every SqliteConnection (a second copy would show
/// as "no such vfs");</item>
/// <item>in the loadable extension (Voron.SqliteExtension), the SQLite that loaded it, reachable
/// only through the sqlite3_api_routines table it passes to the entry point.</item>
/// </list>
/// The methods keep the names and signatures the LibraryImports had; each calls its field.
/// </summary>
internal static unsafe partial class SqliteNative
{
    private static delegate* unmanaged[Cdecl]<int> s_initialize;
    private static delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int> s_vfsRegister;
    private static delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int> s_vfsUnregister;
    private static delegate* unmanaged[Cdecl]<byte*, SqliteVfsStruct*> s_vfsFind;
    private static delegate* unmanaged[Cdecl]<int, byte*> s_malloc;
    private static delegate* unmanaged[Cdecl]<int> s_libVersionNumber;

    private static delegate* unmanaged[Cdecl]<nint, nint, nint> s_nextStmt;
    private static delegate* unmanaged[Cdecl]<nint, int> s_stmtBusy;

    public static int Initialize() => s_initialize();

    /// <summary>
    /// How many prepared statements of connection <paramref name="db"/> are running (stepped, and
    /// neither finished nor reset: sqlite3_next_stmt, sqlite3_stmt_busy). Called on the thread
    /// that holds the connection's mutex (a VFS callback), which SQLite enters again recursively.
    /// </summary>
    public static int BusyStatements(nint db)
    {
        var busy = 0;
        for (var statement = s_nextStmt(db, 0); statement != 0; statement = s_nextStmt(db, statement))
        {
            if (s_stmtBusy(statement) != 0)
            {
                busy++;
            }
        }

        return busy;
    }

    public static int VfsRegister(SqliteVfsStruct* vfs, int makeDefault) => s_vfsRegister(vfs, makeDefault);

    public static int VfsUnregister(SqliteVfsStruct* vfs) => s_vfsUnregister(vfs);

    public static SqliteVfsStruct* VfsFind(byte* name) => s_vfsFind(name);

    /// <summary>Memory SQLite frees itself (the error message of a refused pragma).</summary>
    public static byte* Malloc(int size) => s_malloc(size);

    /// <summary>sqlite3_libversion_number: 3038000 for 3.38.0.</summary>
    public static int LibVersionNumber() => s_libVersionNumber();

    /// <summary>Copies <paramref name="text"/> into sqlite3_malloc'd, NUL-terminated UTF-8 (null if out of memory).</summary>
    public static byte* MallocString(string text)
    {
        var bytes = System.Text.Encoding.UTF8.GetBytes(text);
        var memory = Malloc(bytes.Length + 1);
        if (memory != null)
        {
            bytes.CopyTo(new Span<byte>(memory, bytes.Length));
            memory[bytes.Length] = 0;
        }

        return memory;
    }
}
