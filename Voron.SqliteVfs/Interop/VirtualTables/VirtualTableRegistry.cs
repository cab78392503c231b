namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>Makes <see cref="VirtualTableModule"/>s available to SQLite connections.</summary>
internal static unsafe class VirtualTableRegistry
{
    /// <summary>
    /// Registers <paramref name="module"/> on every connection opened from now on in this process
    /// (sqlite3_auto_extension, once per module name; later calls with the same name do nothing).
    /// </summary>
    public static void RegisterOnEveryConnection(VirtualTableModule module) => throw new NotImplementedException();

    /// <summary>Registers <paramref name="module"/> on one open connection (sqlite3_create_module_v2).</summary>
    public static void Register(nint db, VirtualTableModule module) => throw new NotImplementedException();

    /// <summary>sqlite3_vtab_on_conflict: the ON CONFLICT mode of the statement running xUpdate (1 ROLLBACK, 2 IGNORE, 3 FAIL, 4 ABORT, 5 REPLACE).</summary>
    public static int OnConflict(nint db) => throw new NotImplementedException();

    /// <summary>SQLITE_FCNTL_FILE_POINTER: the sqlite3_file* of database <paramref name="schema"/> on connection <paramref name="db"/>, or null.</summary>
    public static SqliteFile* FileOf(nint db, string schema) => throw new NotImplementedException();
}
