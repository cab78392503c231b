using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>
/// SQLite as a peer, through Microsoft.Data.Sqlite as a careful .NET caller uses it: a
/// <c>kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID</c> table (the rows live in the primary-key
/// B-tree, as in a key-value store), WAL with <c>synchronous=FULL</c> (every commit syncs the
/// WAL: durable), prepared commands reused for every row, one transaction per batch, and a
/// connection of its own for each reader (WAL lets readers run beside each other and beside the
/// writer). Per-call ADO.NET cost (parameter binding, a data reader per query) is part of what
/// the rows measure: they are labelled "SQLite via Microsoft.Data.Sqlite".
/// </summary>
/// <remarks>
/// The page size is SQLite's default. The database is opened by <see cref="SqliteStore"/> with its
/// large page cache and, with <c>mmap</c>, <c>mmap_size</c>, as a user tuning SQLite for reads
/// would. Pooling is off so that disposing the engine closes the database file.
/// </remarks>
internal sealed class SqliteKvEngine : IKvEngine
{
    internal const string FileName = "kv.db";

    private readonly SqliteStore _store;
    private readonly bool _mmap;
    private readonly SqliteConnection _connection;
    private readonly SqliteCommand _put;
    private readonly SqliteParameter _putKey;
    private readonly SqliteParameter _putValue;
    private readonly SqliteCommand _delete;
    private readonly SqliteParameter _deleteKey;
    private byte[] _scanValue = new byte[1024];

    public SqliteKvEngine(string directory, SimulatedDisk disk, bool mmap)
    {
        Directory = directory;
        _mmap = mmap;
        _store = new SqliteStore(Path.Combine(directory, FileName), disk, mmap: mmap);
        _connection = _store.Connect();
        try
        {
            Execute(_connection, "CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;");
            _put = Prepare(_connection, "INSERT OR REPLACE INTO kv(k, v) VALUES ($k, $v)", "$k", "$v");
            _putKey = _put.Parameters["$k"];
            _putValue = _put.Parameters["$v"];
            _delete = Prepare(_connection, "DELETE FROM kv WHERE k = $k", "$k");
            _deleteKey = _delete.Parameters["$k"];
        }
        catch
        {
            _connection.Dispose();
            throw;
        }
    }

    public string Name => _mmap ? KvEngineCatalog.SqliteMmap : KvEngineCatalog.Sqlite;

    public string Directory { get; }

    /// <summary>The native SQLite's version; throws <see cref="DllNotFoundException"/> when it cannot be loaded.</summary>
    internal static string LibraryVersion()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        return connection.ServerVersion;
    }

    public void WriteBatch(IReadOnlyList<KvWrite> writes)
    {
        using (var transaction = _connection.BeginTransaction())
        {
            _put.Transaction = transaction;
            _delete.Transaction = transaction;
            foreach (var write in writes)
            {
                if (write.Value is { } value)
                {
                    _putKey.Value = write.Key;
                    _putValue.Value = value;
                    _put.ExecuteNonQuery();
                }
                else
                {
                    _deleteKey.Value = write.Key;
                    _delete.ExecuteNonQuery();
                }
            }

            transaction.Commit();
            _put.Transaction = null;
            _delete.Transaction = null;
        }
    }

    /// <summary>Checkpoints the whole WAL into the database file (which SQLite then fsyncs) and truncates the WAL.</summary>
    public void Settle() => Execute(_connection, "PRAGMA wal_checkpoint(TRUNCATE);");

    public IKvReader OpenReader() => new SqliteKvReader(_store.Connect());

    public long ScanAll()
    {
        using var scan = _connection.CreateCommand();
        scan.CommandText = "SELECT v FROM kv ORDER BY k";
        using var reader = scan.ExecuteReader();
        long count = 0;
        while (reader.Read())
        {
            SqliteKvReader.CopyValue(reader, ref _scanValue);
            count++;
        }

        return count;
    }

    /// <summary>A prepared command with a blob parameter of each of <paramref name="parameters"/>' names.</summary>
    private static SqliteCommand Prepare(SqliteConnection connection, string sql, params string[] parameters)
    {
        var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var name in parameters)
        {
            command.Parameters.Add(name, SqliteType.Blob);
        }

        command.Prepare();
        return command;
    }

    internal static void Execute(SqliteConnection connection, string sql) => SqliteStore.Execute(connection, sql);

    public void Dispose()
    {
        _put.Dispose();
        _delete.Dispose();
        _connection.Dispose();
    }
}
