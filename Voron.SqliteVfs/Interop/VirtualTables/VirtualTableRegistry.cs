using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace Voron.SqliteVfs.Interop.VirtualTables;

/// <summary>Makes <see cref="VirtualTableModule"/>s available to SQLite connections.</summary>
/// <remarks>
/// Each module gets one native sqlite3_module (<see cref="ModuleCallbacks.CreateModule"/>) and
/// one GCHandle passed as pClientData; SQLite keeps both for as long as a connection has the
/// module, so neither is ever freed. The auto extension is ONE native entry point
/// (<see cref="AutoExtension"/>) that registers every module in <see cref="s_everyConnection"/>
/// on each new connection. It applies only to connections opened AFTER the registration:
/// Microsoft.Data.Sqlite pools connections, and a pooled one opened before does not have it.
/// </remarks>
internal static unsafe class VirtualTableRegistry
{
    private static readonly Lock s_sync = new();

    // Guarded by s_sync: the native module and the client-data handle of each module object.
    private static readonly Dictionary<VirtualTableModule, (nint Module, nint ClientData)> s_native = new(ReferenceEqualityComparer.Instance);

    // Replaced (never mutated) under s_sync; the auto extension reads it without a lock.
    private static VirtualTableModule[] s_everyConnection = [];
    private static bool s_autoExtensionInstalled;

    /// <summary>
    /// Registers <paramref name="module"/> on every connection opened from now on in this process
    /// (sqlite3_auto_extension, once per module name; later calls with the same name do nothing).
    /// </summary>
    public static void RegisterOnEveryConnection(VirtualTableModule module)
    {
        ArgumentNullException.ThrowIfNull(module);
        SqliteNative.EnsureBound(); // EX2: this can be the process's first call into SQLite
        lock (s_sync)
        {
            if (s_everyConnection.Any(m => m.Name == module.Name))
            {
                return;
            }

            _ = NativeOf(module); // allocated now, so the entry point never allocates under SQLite's open
            s_everyConnection = [.. s_everyConnection, module];
            if (!s_autoExtensionInstalled)
            {
                var rc = SqliteNative.AutoExtension((delegate* unmanaged[Cdecl]<nint, byte**, void*, int>)&AutoExtension);
                if (rc != SqliteConstants.Ok)
                {
                    throw new InvalidOperationException($"sqlite3_auto_extension failed with code {rc}.");
                }

                s_autoExtensionInstalled = true;
            }
        }
    }

    /// <summary>Registers <paramref name="module"/> on one open connection (sqlite3_create_module_v2).</summary>
    public static void Register(nint db, VirtualTableModule module)
    {
        ArgumentNullException.ThrowIfNull(module);
        SqliteNative.EnsureBound(); // EX2
        var rc = Create(db, module);
        if (rc != SqliteConstants.Ok)
        {
            throw new InvalidOperationException($"sqlite3_create_module_v2('{module.Name}') failed with code {rc}: {SqliteNative.Utf8String(SqliteNative.ErrorMessage(db))}");
        }
    }

    /// <summary>sqlite3_vtab_on_conflict: the ON CONFLICT mode of the statement running xUpdate (1 ROLLBACK, 2 IGNORE, 3 FAIL, 4 ABORT, 5 REPLACE).</summary>
    public static int OnConflict(nint db) => SqliteNative.VtabOnConflict(db);

    /// <summary>SQLITE_FCNTL_FILE_POINTER: the sqlite3_file* of database <paramref name="schema"/> on connection <paramref name="db"/>, or null.</summary>
    public static SqliteFile* FileOf(nint db, string schema)
    {
        ArgumentNullException.ThrowIfNull(schema);
        var name = Encoding.UTF8.GetBytes(schema + "\0");
        SqliteFile* file = null;
        fixed (byte* p = name)
        {
            return SqliteNative.FileControl(db, p, SqliteConstants.FcntlFilePointer, &file) == SqliteConstants.Ok ? file : null;
        }
    }

    /// <summary>The Voron VFS file behind database <paramref name="schema"/> of connection <paramref name="db"/>, or null when it is not on a Voron VFS.</summary>
    public static Vfs.VfsFile? VoronFileOf(nint db, string schema)
    {
        var native = FileOf(db, schema);
        return native == null || native->Methods != Vfs.IoCallbacks.Methods ? null : Vfs.IoCallbacks.Resolve(native);
    }

    private static (nint Module, nint ClientData) NativeOf(VirtualTableModule module)
    {
        lock (s_sync)
        {
            if (!s_native.TryGetValue(module, out var native))
            {
                native = ((nint)ModuleCallbacks.CreateModule(module.EponymousOnly), GCHandle.ToIntPtr(GCHandle.Alloc(module)));
                s_native.Add(module, native);
            }

            return native;
        }
    }

    private static int Create(nint db, VirtualTableModule module)
    {
        var (native, clientData) = NativeOf(module);
        var name = Encoding.UTF8.GetBytes(module.Name + "\0");
        fixed (byte* p = name)
        {
            return SqliteNative.CreateModule(db, p, (SqliteModuleStruct*)native, (void*)clientData, null); // SQLite copies the name
        }
    }

    /// <summary>
    /// The auto-extension entry point, called by sqlite3_open on the opening thread for every new
    /// connection of the process. An error here fails the open, so it answers one only when a
    /// module could not be registered.
    /// </summary>
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static int AutoExtension(nint db, byte** error, void* api)
    {
        try
        {
            foreach (var module in Volatile.Read(ref s_everyConnection))
            {
                var rc = Create(db, module);
                if (rc != SqliteConstants.Ok)
                {
                    *error = SqliteNative.MallocString($"registering the virtual-table module '{module.Name}' failed with code {rc}");
                    return rc;
                }
            }

            return SqliteConstants.Ok;
        }
        catch (Exception e)
        {
            Vfs.ErrorCodes.Note(e);
            *error = SqliteNative.MallocString($"registering the virtual-table modules failed: {e.Message}");
            return SqliteConstants.Error;
        }
    }
}
