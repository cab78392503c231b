using Microsoft.Data.Sqlite;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs;

/// <summary>
/// A store registered as a SQLite VFS (<see cref="VoronSqlite.Register"/>). Disposing it clears
/// Microsoft.Data.Sqlite's connection pools and unregisters the VFS; dispose it before the store.
/// </summary>
public sealed class VoronSqliteRegistration : IDisposable
{
    private readonly NativeVfs _vfs;
    private int _disposed;

    internal VoronSqliteRegistration(NativeVfs vfs) => _vfs = vfs;

    /// <summary>The VFS name to put in connection strings (<c>Vfs=</c>).</summary>
    public string VfsName => _vfs.Name;

    /// <summary>The store the databases live in.</summary>
    public StorageEnvironment Environment => _vfs.Environment;

    internal Databases.SqliteDatabases Databases => _vfs.Databases;

    /// <summary>The VFS behind this registration (Voron.SqliteVfs.Documents binds its hook to it).</summary>
    internal NativeVfs Vfs => _vfs;

    /// <summary>Throws when the registration is disposed.</summary>
    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

    /// <summary>
    /// What SQL on <paramref name="database"/> did since the store was opened: write transactions,
    /// the write lock's waits, hold times and hand-offs, and the waits and re-runs snapshots
    /// caused (<see cref="VoronSqliteStatistics"/>). A database no connection opened yet has
    /// every counter at zero. Cheap: it reads counters, not the database.
    /// </summary>
    /// <exception cref="ArgumentException">The name is empty, has a path separator or a control character, or is too long.</exception>
    public VoronSqliteStatistics GetStatistics(string database)
    {
        DatabaseNames.Validate(database);
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        return _vfs.Databases.Get(database).Statistics();
    }

    /// <summary>A connection string for <paramref name="database"/> on this VFS (pooled, as Microsoft.Data.Sqlite's default).</summary>
    /// <exception cref="ArgumentException">The name is empty, has a path separator or a control character, or is too long.</exception>
    public string ConnectionString(string database)
    {
        DatabaseNames.Validate(database);
        return new SqliteConnectionStringBuilder { DataSource = database, Vfs = VfsName }.ToString();
    }

    /// <summary>
    /// Opens a connection to <paramref name="database"/> (created on first write; on a read replica
    /// it must exist, and every write is SQLITE_READONLY) with SQLite's
    /// rollback journal in memory (<c>journal_mode=MEMORY</c>, the cheapest of the modes this VFS
    /// allows).
    /// </summary>
    public SqliteConnection OpenConnection(string database)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        var connection = new SqliteConnection(ConnectionString(database));
        try
        {
            connection.Open();
            using var pragma = connection.CreateCommand();
            pragma.CommandText = "PRAGMA journal_mode=MEMORY";
            pragma.ExecuteNonQuery();
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Clears Microsoft.Data.Sqlite's connection pools (pooled connections hold the VFS's files)
    /// and unregisters the VFS: new connections can no longer name it.
    /// </summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        SqliteConnection.ClearAllPools();
        _vfs.Unregister();
    }
}
