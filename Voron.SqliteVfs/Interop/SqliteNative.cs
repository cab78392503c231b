using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Voron.SqliteVfs.Interop;

/// <summary>
/// The few functions of SQLite's C API the VFS needs, imported from the same native library
/// Microsoft.Data.Sqlite loads: SQLitePCLRaw's e_sqlite3 provider imports "e_sqlite3", and the
/// loader returns the module already loaded, so a VFS registered here is visible to every
/// SqliteConnection (a second copy would show as "no such vfs").
/// </summary>
internal static unsafe partial class SqliteNative
{
    private const string Library = "e_sqlite3";

    [LibraryImport(Library, EntryPoint = "sqlite3_initialize")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int Initialize();

    [LibraryImport(Library, EntryPoint = "sqlite3_vfs_register")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VfsRegister(SqliteVfsStruct* vfs, int makeDefault);

    [LibraryImport(Library, EntryPoint = "sqlite3_vfs_unregister")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial int VfsUnregister(SqliteVfsStruct* vfs);

    [LibraryImport(Library, EntryPoint = "sqlite3_vfs_find")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial SqliteVfsStruct* VfsFind(byte* name);

    /// <summary>Memory SQLite frees itself (the error message of a refused pragma).</summary>
    [LibraryImport(Library, EntryPoint = "sqlite3_malloc")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    public static partial byte* Malloc(int size);

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
