using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Voron.SqliteVfs.Interop;

namespace Voron.SqliteExtension;

// EX3. Inside the extension, SQLite is reached ONLY through the sqlite3_api_routines table the
//      loading SQLite passes to sqlite3_extension_init (SqliteNative.BindApiTable, EX2): the
//      shared library has no e_sqlite3 and must not load one (a second SQLite would not see the
//      VFS). Nothing on this path may reach Microsoft.Data.Sqlite or SQLitePCLRaw, which are
//      not in voron.so; VoronSqlite.RegisterNative is the registration path without them.

/// <summary>
/// The entry point SQLite calls on <c>.load voron</c> (or sqlite3_load_extension): binds
/// SqliteNative to the loading SQLite, adds voron_open and voron_close to the connection and, by
/// an auto extension, to every connection opened later in the process (the shell's <c>.open</c>
/// makes a new one).
/// </summary>
internal static unsafe class ExtensionEntryPoint
{
    /// <summary>SQLITE_OK_LOAD_PERMANENTLY: keep the library loaded after the connection closes (the VFS outlives it).</summary>
    private const int OkLoadPermanently = 256;

    /// <summary>SQLITE_UTF8.</summary>
    private const int Utf8 = 1;

    /// <summary>SQLITE_DIRECTONLY: not callable from triggers, views or schema (it opens files).</summary>
    private const int DirectOnly = 0x80000;

    private static int s_autoExtensionInstalled;

    [UnmanagedCallersOnly(EntryPoint = "sqlite3_extension_init", CallConvs = [typeof(CallConvCdecl)])]
    private static int Init(nint db, byte** error, void* api)
    {
        var rc = SqliteNative.BindApiTable(api, error);
        if (rc != SqliteConstants.Ok)
        {
            return rc;
        }

        try
        {
            rc = AddFunctions(db);
            if (rc == SqliteConstants.Ok && Interlocked.Exchange(ref s_autoExtensionInstalled, 1) == 0)
            {
                rc = SqliteNative.AutoExtension((delegate* unmanaged[Cdecl]<nint, byte**, void*, int>)&OnNewConnection);
            }

            if (rc != SqliteConstants.Ok)
            {
                *error = SqliteNative.MallocString($"voron: registering voron_open and voron_close failed with code {rc}: {SqliteNative.Utf8String(SqliteNative.ErrorMessage(db))}");
                return rc;
            }

            return OkLoadPermanently;
        }
        catch (Exception e)
        {
            *error = SqliteNative.MallocString($"voron: loading failed: {e.Message}");
            return SqliteConstants.Error;
        }
    }

    /// <summary>The auto extension: voron_open and voron_close on each connection opened after the load.</summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int OnNewConnection(nint db, byte** error, void* api)
    {
        try
        {
            var rc = AddFunctions(db);
            if (rc != SqliteConstants.Ok)
            {
                *error = SqliteNative.MallocString($"voron: registering voron_open and voron_close failed with code {rc}");
            }

            return rc;
        }
        catch (Exception e)
        {
            *error = SqliteNative.MallocString($"voron: registering voron_open and voron_close failed: {e.Message}");
            return SqliteConstants.Error;
        }
    }

    private static int AddFunctions(nint db)
    {
        var rc = Add(db, "voron_open", 1, (delegate* unmanaged[Cdecl]<nint, int, nint*, void>)&SqlFunctions.Open);
        rc = rc != SqliteConstants.Ok ? rc : Add(db, "voron_open", 2, (delegate* unmanaged[Cdecl]<nint, int, nint*, void>)&SqlFunctions.Open); // (path, key_file)
        return rc != SqliteConstants.Ok ? rc : Add(db, "voron_close", 0, (delegate* unmanaged[Cdecl]<nint, int, nint*, void>)&SqlFunctions.Close);
    }

    private static int Add(nint db, string name, int arguments, delegate* unmanaged[Cdecl]<nint, int, nint*, void> function)
    {
        var bytes = Encoding.UTF8.GetBytes(name + "\0");
        fixed (byte* p = bytes)
        {
            return SqliteNative.CreateFunction(db, p, arguments, Utf8 | DirectOnly, null, function); // SQLite copies the name
        }
    }
}
