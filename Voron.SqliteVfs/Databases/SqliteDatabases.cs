using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Voron.SqliteVfs.Databases;

/// <summary>
/// The SQLite databases of one store. Shared by every registration of that store, so two VFS
/// names over one store still share one write lock and one commit chain per database.
/// </summary>
internal sealed class SqliteDatabases
{
    private static readonly ConditionalWeakTable<StorageEnvironment, SqliteDatabases> s_byStore = [];

    private readonly StorageEnvironment _environment;
    private readonly ConcurrentDictionary<string, Lazy<DatabaseState>> _databases = new(StringComparer.Ordinal);

    private SqliteDatabases(StorageEnvironment environment) => _environment = environment;

    public static SqliteDatabases For(StorageEnvironment environment) => s_byStore.GetValue(environment, e => new SqliteDatabases(e));

    public DatabaseState Get(string name) =>
        _databases.GetOrAdd(name, n => new Lazy<DatabaseState>(() => new DatabaseState(_environment, n))).Value;
}
