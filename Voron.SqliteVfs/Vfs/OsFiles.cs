using System.Runtime.InteropServices;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// V12: a name that is an absolute path (<c>/backups/orders.db</c>, <c>C:\backups\orders.db</c>)
/// is an ordinary file outside the store, served by SQLite's default VFS exactly as without
/// <c>Vfs=</c>: that is what <c>VACUUM INTO '/backups/orders.db'</c> and <c>ATTACH</c> of a path
/// open. Every other name is a database inside the store (DatabaseNames). The sqlite3_file block
/// SQLite allocates is large enough for the default VFS's file (NativeVfs.Allocate) and gets the
/// default VFS's io methods, so SQLite never calls this VFS for that file again.
/// </summary>
internal static unsafe class OsFiles
{
    /// <summary>Whether <paramref name="name"/> names an OS file rather than a database in the store.</summary>
    public static bool IsOsPath(string? name) => !string.IsNullOrEmpty(name) && Path.IsPathFullyQualified(name);

    /// <summary>
    /// The same test on the name SQLite passed; xAccess runs it at every transaction start, so a
    /// store name (which cannot begin with a separator or a drive) is told apart without a string.
    /// </summary>
    public static bool IsOsPath(byte* name) =>
        name != null && (name[0] == (byte)'/' || name[0] == (byte)'\\' || (name[0] != 0 && name[1] == (byte)':')) &&
        IsOsPath(Marshal.PtrToStringUTF8((nint)name));

    public static int Open(byte* name, SqliteFile* file, int flags, int* outFlags)
    {
        var system = NativeVfs.DefaultVfs;
        return system->Open(system, name, file, flags, outFlags);
    }

    public static int Delete(byte* name, int syncDirectory)
    {
        var system = NativeVfs.DefaultVfs;
        return system->Delete(system, name, syncDirectory);
    }

    public static int Access(byte* name, int flags, int* result)
    {
        var system = NativeVfs.DefaultVfs;
        return system->Access(system, name, flags, result);
    }

    public static int FullPathname(byte* name, int size, byte* output)
    {
        var system = NativeVfs.DefaultVfs;
        return system->FullPathname(system, name, size, output);
    }

    /// <summary>The default VFS's xSleep (SQLITE's sleep in microseconds; returns what it slept).</summary>
    public static int Sleep(int microseconds)
    {
        var system = NativeVfs.DefaultVfs;
        return ((delegate* unmanaged[Cdecl]<SqliteVfsStruct*, int, int>)system->Sleep)(system, microseconds);
    }
}
