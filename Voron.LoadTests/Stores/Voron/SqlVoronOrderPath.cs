using Voron.SqliteVfs;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;
using Voron.LoadTests.Stores.Sqlite;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// (b) SQL on Voron: the relational schema (<see cref="RelationalOrders"/>) in database
/// <c>orders</c> of a Voron store registered as a SQLite VFS (<c>Vfs=</c> its name), through
/// Microsoft.Data.Sqlite. The same statements as <see cref="SqliteOrderPath"/>; only the
/// connection differs (<see cref="VoronSqliteRegistration.OpenConnection"/>: journal_mode=MEMORY,
/// pooled), with the same page cache and busy_timeout. Sealed (<c>sql-voron-sealed</c>) when
/// opened with a key: the VFS registered over a sealed environment.
/// </summary>
internal sealed class SqlVoronOrderPath : IOrderPath, ISqlCounted
{
    public const string Database = "orders";

    private readonly StorageEnvironment _environment;
    private readonly VoronSqliteRegistration _registration;

    private readonly bool _sealed;

    private SqlVoronOrderPath(StorageEnvironment environment, VoronSqliteRegistration registration, bool isSealed)
    {
        _environment = environment;
        _registration = registration;
        _sealed = isSealed;
    }

    /// <param name="sealingKey">The key to seal the store with (<see cref="VoronStore.NewSealingKey"/>); null: not sealed.</param>
    public static SqlVoronOrderPath Open(string directory, OrdersSize size, SimulatedDisk disk, byte[]? sealingKey = null)
    {
        var environment = VoronStore.Open(directory, disk, sealingKey: sealingKey);
        VoronSqliteRegistration? registration = null;
        try
        {
            registration = VoronStore.RegisterSql(environment, "voron-orders");
            var path = new SqlVoronOrderPath(environment, registration, sealingKey != null);
            using (var connection = path.Connect())
            {
                RelationalOrders.Create(connection, size);
            }

            environment.FlushToDataFile();
            return path;
        }
        catch
        {
            registration?.Dispose();
            environment.Dispose();
            throw;
        }
    }

    /// <summary>The durability text of both SQL paths on Voron.</summary>
    internal const string VoronDurability = "Durable store: COMMIT returns after the journal fdatasync covering it; concurrent commits share it";

    public string Name => _sealed ? OrderPaths.SqlVoronSealed : OrderPaths.SqlVoron;

    public string Description => "SQLite on Vfs=voron through Microsoft.Data.Sqlite: relational tables customers, products, orders, order_lines";

    public string Durability => $"{VoronDurability}; busy_timeout={SqliteStore.BusyTimeoutMs} for concurrent writers" + (_sealed ? $"; {VoronStore.Sealing}" : "");

    public bool UsesThreads => true;

    private SqliteConnection Connect() => Configured(_registration.OpenConnection(Database));

    public IOrderCaller CreateCaller() => new RelationalOrderCaller(Connect());

    public void Settle() => _environment.FlushToDataFile();

    public VoronSqliteStatistics SqlStatistics() => _registration.GetStatistics(Database);

    public long JournalWrites => _environment.JournalWrites;

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var connection = Connect();
        return RelationalOrders.Plans(connection);
    }

    public void Dispose()
    {
        _registration.Dispose();
        _environment.Dispose();
    }

    /// <summary>
    /// A connection to a SQL path on Voron with the settings stock SQLite's connections get from
    /// <see cref="SqliteStore"/> (busy_timeout, the page cache), or disposed when that fails.
    /// </summary>
    internal static SqliteConnection Configured(SqliteConnection connection)
    {
        try
        {
            SqliteCommands.Execute(connection, $"PRAGMA busy_timeout={SqliteStore.BusyTimeoutMs}; PRAGMA cache_size={SqliteStore.CacheSizePragma};");
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }
}
