using System.Globalization;
using System.Text.Json;
using DocumentsApi;
using Microsoft.Data.Sqlite;
using Voron.LoadTests.Stores.Sqlite;

namespace Voron.Diagnostics.Experiments.Http;

/// <summary>
/// The products of samples/DocumentsApi kept in SQLite through Microsoft.Data.Sqlite, as a careful
/// app would: WAL with <c>synchronous=FULL</c> (every commit syncs the WAL: durable), one
/// transaction per request, writes through one connection held open with its insert prepared
/// (one writer at a time, as SQLite allows: requests queue on an async gate instead of spinning
/// on SQLITE_BUSY), reads on pooled connections of their own (WAL lets them run beside the
/// writer). Documents are stored as the same JSON the Voron endpoint stores, with the indexed
/// fields in columns and an index on (category, price), and read back as stored.
/// </summary>
internal sealed class SqliteProducts : IDisposable
{
    private readonly string _readConnectionString;
    private readonly SqliteConnection _writer;
    private readonly SqliteCommand _insert;
    private readonly SemaphoreSlim _writeGate = new(1, 1);
    private long _lastId;

    public SqliteProducts(string directory)
    {
        var path = Path.Combine(directory, "products.db");
        _readConnectionString = new SqliteConnectionStringBuilder { DataSource = path, Mode = SqliteOpenMode.ReadOnly, Pooling = true }.ToString();
        _writer = new SqliteStore(path, pageCache: false).Connect(); // WAL, synchronous=FULL
        Execute(_writer, "CREATE TABLE IF NOT EXISTS products(id INTEGER PRIMARY KEY, version INTEGER NOT NULL, category TEXT NOT NULL, price REAL NOT NULL, json BLOB NOT NULL);" +
                         "CREATE INDEX IF NOT EXISTS products_by_category_price ON products(category, price);");
        _insert = _writer.CreateCommand();
        _insert.CommandText = "INSERT INTO products(id, version, category, price, json) VALUES ($id, $id, $category, $price, $json)";
        _insert.Parameters.Add("$id", SqliteType.Integer);
        _insert.Parameters.Add("$category", SqliteType.Text);
        _insert.Parameters.Add("$price", SqliteType.Real);
        _insert.Parameters.Add("$json", SqliteType.Blob);
        _insert.Prepare();
    }

    /// <summary>Stores a new product in a transaction of its own; returns it with its id and its version.</summary>
    public async Task<(Product Product, long Version)> InsertAsync(Product product, CancellationToken cancellationToken)
    {
        await _writeGate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var id = _lastId + 1;
            product.Id = "products/" + id.ToString(CultureInfo.InvariantCulture);
            using var transaction = _writer.BeginTransaction();
            _insert.Transaction = transaction;
            _insert.Parameters["$id"].Value = id;
            _insert.Parameters["$category"].Value = product.Category;
            _insert.Parameters["$price"].Value = product.Price;
            _insert.Parameters["$json"].Value = JsonSerializer.SerializeToUtf8Bytes(product, AppJson.Default.Product);
            _insert.ExecuteNonQuery();
            transaction.Commit(); // WAL, synchronous=FULL: durable when this returns
            _lastId = id;
            return (product, id);
        }
        finally
        {
            _insert.Transaction = null;
            _writeGate.Release();
        }
    }

    /// <summary>A product's stored JSON and version, or null.</summary>
    public (byte[] Json, long Version)? Get(long id)
    {
        using var connection = OpenReader();
        using var select = connection.CreateCommand();
        select.CommandText = "SELECT json, version FROM products WHERE id = $id";
        select.Parameters.AddWithValue("$id", id);
        using var reader = select.ExecuteReader();
        return reader.Read() ? ((byte[])reader[0], reader.GetInt64(1)) : null;
    }

    /// <summary>The stored JSON of the products of <paramref name="category"/> up to <paramref name="maxPrice"/>, cheapest first, through the index.</summary>
    public List<byte[]> Query(string category, double? maxPrice, int take)
    {
        using var connection = OpenReader();
        using var select = connection.CreateCommand();
        select.CommandText = "SELECT json FROM products WHERE category = $category AND price <= $max ORDER BY price LIMIT $take";
        select.Parameters.AddWithValue("$category", category);
        select.Parameters.AddWithValue("$max", maxPrice ?? double.MaxValue);
        select.Parameters.AddWithValue("$take", take);
        using var reader = select.ExecuteReader();
        var results = new List<byte[]>();
        while (reader.Read())
        {
            results.Add((byte[])reader[0]);
        }

        return results;
    }

    private SqliteConnection OpenReader()
    {
        var connection = new SqliteConnection(_readConnectionString);
        connection.Open();
        return connection;
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
        _writer.Dispose();
        _writeGate.Dispose();
        SqliteConnection.ClearAllPools();
    }
}
