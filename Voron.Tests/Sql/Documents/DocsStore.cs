namespace Voron.Tests.Sql.Documents;

/// <summary>
/// A store registered as a SQLite VFS (<see cref="SqlStore"/>) with a <see cref="DocumentStore"/>
/// over the same environment bound to it, so that SQL on its databases reaches the documents
/// (<c>voron_docs</c>). Connections are unpooled: a test's connections close with it.
/// </summary>
internal sealed class DocsStore : IDisposable
{
    public DocsStore(IFileSystem? fileSystem = null, DocumentStoreOptions? options = null)
    {
        Sql = new SqlStore(fileSystem);
        Documents = options == null ? DocumentStore.Open(Sql.Environment) : DocumentStore.Open(Sql.Environment, options);
        Sql.Registration.UseDocuments(Documents);
    }

    public SqlStore Sql { get; }

    public DocumentStore Documents { get; }

    public SqliteConnection Open(string database = "db") => Sql.Open(database, pooling: false);

    /// <summary>Stores <paramref name="json"/> as document <paramref name="id"/> through a session.</summary>
    public async Task StoreRawAsync(string collection, string id, string json, long? expectedVersion = null)
    {
        await using var session = Documents.OpenSession();
        session.StoreRaw(collection, id, Encoding.UTF8.GetBytes(json), expectedVersion);
        await session.SaveChangesAsync();
    }

    /// <summary>The stored JSON of <paramref name="id"/> and its version, read through a session; null when there is none.</summary>
    public async Task<(string Json, long Version)?> LoadRawAsync(string id)
    {
        await using var session = Documents.OpenSession();
        using var document = await session.LoadRawAsync(id);
        return document == null ? null : (Encoding.UTF8.GetString(document.Json.Span), document.Metadata.Version);
    }

    /// <summary>Every document of <paramref name="collection"/> (id, JSON), by id, read through a session.</summary>
    public async Task<List<(string Id, string Json)>> CollectionAsync(string collection)
    {
        await using var session = Documents.OpenSession();
        var documents = await session.QueryRaw(collection).AllowScan().ToListAsync();
        try
        {
            return [.. documents.Select(d => (d.Id, Encoding.UTF8.GetString(d.Json.Span))).OrderBy(d => d.Id, StringComparer.Ordinal)];
        }
        finally
        {
            documents.ForEach(d => d.Dispose());
        }
    }

    public void Dispose()
    {
        Sql.Registration.Dispose();
        Documents.Dispose();
        Sql.Environment.Dispose();
    }
}

/// <summary>ADO.NET helpers the voron_docs tests add to <see cref="Sql"/>'s.</summary>
internal static class DocsSql
{
    /// <summary>The rows of <paramref name="sql"/> run with <paramref name="parameters"/>, each value as Microsoft.Data.Sqlite reads it (null for NULL).</summary>
    public static List<object?[]> Query(this SqliteConnection connection, string sql, params (string Name, object? Value)[] parameters) =>
        connection.Rows(sql, parameters);

    /// <summary>The first column of the first row, or null.</summary>
    public static object? Value(this SqliteConnection connection, string sql, params (string Name, object? Value)[] parameters) =>
        connection.Query(sql, parameters).FirstOrDefault()?[0];

    /// <summary>
    /// Rolls back the connection's transaction if one is still open. After a failed COMMIT SQLite
    /// may have rolled back already (then ROLLBACK says so, and that is fine) or may keep the
    /// transaction open (SQLITE_BUSY): either way the connection ends up in autocommit.
    /// </summary>
    public static void RollbackIfOpen(this SqliteConnection connection)
    {
        try
        {
            connection.Execute("ROLLBACK");
        }
        catch (SqliteException e) when (e.Message.Contains("no transaction is active", StringComparison.Ordinal))
        {
        }
    }

    /// <summary>A row as text for assertion messages: values with their .NET type.</summary>
    public static string Show(object?[] row) => "(" + string.Join(", ", row.Select(Show)) + ")";

    public static string Show(object? value) => value switch
    {
        null => "NULL",
        string s => "'" + s.Replace("\0", "\\0", StringComparison.Ordinal) + "'",
        double d => d.ToString("R", System.Globalization.CultureInfo.InvariantCulture) + "r" + (double.IsNegative(d) && d == 0 ? "(-0)" : ""),
        byte[] b => "x'" + Convert.ToHexString(b) + "'",
        _ => Convert.ToString(value, System.Globalization.CultureInfo.InvariantCulture) + ":" + value.GetType().Name,
    };
}
