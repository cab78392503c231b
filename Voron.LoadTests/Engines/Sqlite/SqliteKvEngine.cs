using Microsoft.Data.Sqlite;

namespace Voron.LoadTests.Engines.Sqlite;

/// <summary>
/// SQLite as a peer of the <c>kv</c> experiment, through Microsoft.Data.Sqlite as a careful .NET
/// caller uses it: a <c>kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID</c> table (the rows live in
/// the primary-key B-tree, as in a key-value store), WAL with <c>synchronous=FULL</c> (every
/// commit syncs the WAL: durable), one prepared insert reused for every row, one transaction per
/// batch, and a connection of its own for each reader (WAL lets readers run beside each other
/// and beside the writer).
/// </summary>
/// <remarks>
/// The page size is SQLite's default. Every connection gets <see cref="CacheSizePragma"/>: room
/// for the whole table of a full run, so reads are not held back by a small page cache when the
/// memory-mapped peers have all of the OS page cache. Pooling is off so that disposing the
/// engine closes the database file.
/// </remarks>
internal sealed class SqliteKvEngine : IKvEngine
{
    /// <summary><c>PRAGMA cache_size</c> for every connection: negative means KiB, so 256 MiB.</summary>
    internal const int CacheSizePragma = -262_144;

    internal const string FileName = "kv.db";

    private readonly string _connectionString;
    private readonly SqliteConnection _connection;
    private readonly SqliteCommand _insert;
    private readonly SqliteParameter _insertKey;
    private readonly SqliteParameter _insertValue;
    private byte[] _scanValue = new byte[1024];

    public SqliteKvEngine(string directory)
    {
        _connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = Path.Combine(directory, FileName),
            Pooling = false,
        }.ToString();
        _connection = OpenConnection(_connectionString);
        try
        {
            Execute(_connection, "PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;");
            _insert = _connection.CreateCommand();
            _insert.CommandText = "INSERT INTO kv(k, v) VALUES ($k, $v)";
            _insertKey = _insert.Parameters.Add("$k", SqliteType.Blob);
            _insertValue = _insert.Parameters.Add("$v", SqliteType.Blob);
            _insert.Prepare();
        }
        catch
        {
            _connection.Dispose();
            throw;
        }
    }

    public string Name => KvEngineCatalog.Sqlite;

    /// <summary>The native SQLite's version; throws <see cref="DllNotFoundException"/> when it cannot be loaded.</summary>
    internal static string LibraryVersion()
    {
        using var connection = new SqliteConnection("Data Source=:memory:");
        connection.Open();
        return connection.ServerVersion;
    }

    public void InsertBatch(IReadOnlyList<(byte[] Key, byte[] Value)> items)
    {
        using var transaction = _connection.BeginTransaction();
        _insert.Transaction = transaction;
        foreach (var (key, value) in items)
        {
            _insertKey.Value = key;
            _insertValue.Value = value;
            _insert.ExecuteNonQuery();
        }

        transaction.Commit();
        _insert.Transaction = null;
    }

    public IKvReader OpenReader() => new SqliteKvReader(OpenConnection(_connectionString));

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

    /// <summary>Opens a connection with this engine's per-connection settings.</summary>
    private static SqliteConnection OpenConnection(string connectionString)
    {
        var connection = new SqliteConnection(connectionString);
        try
        {
            connection.Open();
            Execute(connection, $"PRAGMA synchronous=FULL; PRAGMA cache_size={CacheSizePragma};");
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    private static void Execute(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    public void Dispose()
    {
        _insert.Dispose();
        _connection.Dispose();
    }
}
