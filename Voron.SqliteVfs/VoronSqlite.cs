using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs;

/// <summary>
/// Keeps SQLite databases inside a Voron store: register the store once as a SQLite VFS, then
/// open ordinary Microsoft.Data.Sqlite connections with <c>Vfs=</c> that name
/// (<c>Data Source=orders;Vfs=voron</c>). Every commit goes through the store's journal and
/// shares journal flushes with the commits of other connections, databases and writers.
/// </summary>
public static class VoronSqlite
{
    private static readonly Lock s_registering = new();

    /// <summary>
    /// Registers <paramref name="environment"/> as the SQLite VFS <paramref name="vfsName"/> in the
    /// native SQLite that Microsoft.Data.Sqlite uses. Dispose the registration before the store.
    /// </summary>
    /// <exception cref="InvalidOperationException">A VFS with that name is already registered.</exception>
    public static VoronSqliteRegistration Register(StorageEnvironment environment, string vfsName = "voron", VoronSqliteOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(environment);
        ArgumentException.ThrowIfNullOrWhiteSpace(vfsName);
        Interop.SqliteNative.EnsureBound(); // EX2: the first call into the process's SQLite
        return new VoronSqliteRegistration(RegisterNative(environment, vfsName, options));
    }

    /// <summary>
    /// Registers the VFS in whichever SQLite <see cref="Interop.SqliteNative"/> is
    /// bound to, without touching Microsoft.Data.Sqlite (the loadable extension's path: it
    /// unregisters with <see cref="NativeVfs.Unregister"/>, as there are no pools to clear).
    /// </summary>
    internal static NativeVfs RegisterNative(StorageEnvironment environment, string vfsName, VoronSqliteOptions? options)
    {
        lock (s_registering)
        {
            if (NativeVfs.IsRegistered(vfsName))
            {
                throw new InvalidOperationException($"A SQLite VFS named '{vfsName}' is already registered; dispose its registration first or pick another name.");
            }

            return NativeVfs.Register(environment, vfsName, options ?? new VoronSqliteOptions());
        }
    }

    /// <summary>
    /// DH1: the modules of SQL over documents (voron_docs and voron_collection, SD1) on every
    /// connection opened from now on, and their conflict test; once per module name. They refuse
    /// databases not on a Voron VFS.
    /// </summary>
    internal static void RegisterModules(Databases.IDocumentModules modules)
    {
        Vfs.ErrorCodes.RecogniseConflicts(modules.IsConflict);
        foreach (var module in modules.Modules)
        {
            Interop.VirtualTables.VirtualTableRegistry.RegisterOnEveryConnection(module);
        }
    }

    /// <summary>
    /// The store error behind the last SQLite error this thread got from a Voron VFS (SQLite's
    /// own message is generic: "database disk image is malformed", "disk I/O error"), or, after
    /// SQLITE_BUSY ("database is locked"), why the VFS refused the write lock: a
    /// <see cref="TimeoutException"/> when another connection holds it (naming the timeouts that
    /// bound the wait), an <see cref="InvalidOperationException"/> when the transaction's snapshot
    /// is stale. On a read replica, after SQLITE_READONLY or SQLITE_CANTOPEN, it says the store is a
    /// replica and to write to the primary, or that the database does not exist there. Read it right
    /// after catching the <c>SqliteException</c>; null when the VFS has reported nothing.
    /// </summary>
    public static Exception? LastError => ErrorCodes.LastError;
}
