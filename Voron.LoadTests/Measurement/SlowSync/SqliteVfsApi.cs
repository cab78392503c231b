using System.Runtime.InteropServices;

namespace Voron.LoadTests.Measurement.SlowSync;

/// <summary>
/// The four functions of SQLite's C API a VFS needs, from the native library Microsoft.Data.Sqlite
/// loaded (SQLitePCLRaw's e_sqlite3): resolving "e_sqlite3" again returns the module already
/// loaded, so a VFS registered here is the one every SqliteConnection sees by its name.
/// Bound once, on first use; a missing export throws, naming it.
/// </summary>
internal static unsafe class SqliteVfsApi
{
    private static readonly Lock Binding = new();
    private static volatile bool s_bound;
    private static delegate* unmanaged[Cdecl]<int> s_initialize;
    private static delegate* unmanaged[Cdecl]<byte*, SqliteVfsStruct*> s_vfsFind;
    private static delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int> s_vfsRegister;
    private static delegate* unmanaged[Cdecl]<int> s_libVersionNumber;

    /// <summary>sqlite3_vfs_find: the VFS named <paramref name="name"/>, the default one for null, or null.</summary>
    public static SqliteVfsStruct* Find(string? name)
    {
        EnsureBound();
        if (name == null)
        {
            return s_vfsFind(null);
        }

        var bytes = System.Text.Encoding.UTF8.GetBytes(name + "\0");
        fixed (byte* text = bytes)
        {
            return s_vfsFind(text);
        }
    }

    /// <summary>sqlite3_vfs_register, not as the default: SQLite keeps <paramref name="vfs"/> (and its name) for the process's life.</summary>
    public static int Register(SqliteVfsStruct* vfs)
    {
        EnsureBound();
        return s_vfsRegister(vfs, 0);
    }

    /// <summary>sqlite3_libversion_number: 3038000 for 3.38.0.</summary>
    public static int LibVersionNumber()
    {
        EnsureBound();
        return s_libVersionNumber();
    }

    private static void EnsureBound()
    {
        if (s_bound)
        {
            return;
        }

        lock (Binding)
        {
            if (s_bound)
            {
                return;
            }

            SQLitePCL.Batteries_V2.Init(); // what a first SqliteConnection does: loads e_sqlite3
            var library = NativeLibrary.Load("e_sqlite3", typeof(SqliteVfsApi).Assembly, null);
            nint Get(string export) =>
                NativeLibrary.TryGetExport(library, export, out var address) && address != 0
                    ? address
                    : throw new InvalidOperationException($"The e_sqlite3 library Microsoft.Data.Sqlite loaded has no {export}.");

            s_initialize = (delegate* unmanaged[Cdecl]<int>)Get("sqlite3_initialize");
            s_vfsFind = (delegate* unmanaged[Cdecl]<byte*, SqliteVfsStruct*>)Get("sqlite3_vfs_find");
            s_vfsRegister = (delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int>)Get("sqlite3_vfs_register");
            s_libVersionNumber = (delegate* unmanaged[Cdecl]<int>)Get("sqlite3_libversion_number");
            var rc = s_initialize();
            if (rc != 0)
            {
                throw new InvalidOperationException($"sqlite3_initialize failed with SQLite error {rc}.");
            }

            s_bound = true;
        }
    }
}
