using System.Text;
using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs;

namespace Voron.PostgreSql.Tests;

/// <summary>Stores the export tests read: documents made through the public API, seeded, and SQLite databases in the store.</summary>
internal static class ExportStores
{
    /// <summary>The JSON of user <paramref name="i"/>: PascalCase as Marten's default serializer writes; every third one carries its Id, the others leave it to the store (PE5).</summary>
    public static string UserJson(int i) =>
        (i % 3 == 0 ? $$"""{"Id":"users/{{i:D6}}",""" : "{") +
        $$"""
         "Name":"User {{i}} ünïcödé","Age":{{i % 90}},"City":"City {{i % 7}}","Tags":["t{{i % 5}}","t{{i % 11}}"],"Score":{{i * 0.5}}}
         """;

    /// <summary>Stores <paramref name="users"/> User documents (users/000000...) and <paramref name="orders"/> Order documents, in sessions of 10,000.</summary>
    public static async Task AddDocumentsAsync(DocumentStore documents, int users, int orders)
    {
        for (var start = 0; start < users; start += 10_000)
        {
            await using var session = documents.OpenSession();
            for (var i = start; i < Math.Min(users, start + 10_000); i++)
            {
                session.StoreRaw("User", $"users/{i:D6}", Encoding.UTF8.GetBytes(UserJson(i)));
            }

            await session.SaveChangesAsync();
        }

        for (var start = 0; start < orders; start += 10_000)
        {
            await using var session = documents.OpenSession();
            for (var i = start; i < Math.Min(orders, start + 10_000); i++)
            {
                session.StoreRaw("Order", $"orders/{i:D6}", Encoding.UTF8.GetBytes($$"""{"Customer":"users/{{i % 1000:D6}}","Total":{{i}},"Lines":[{"Sku":"s{{i}}","Qty":{{i % 4 + 1}}}]}"""));
            }

            await session.SaveChangesAsync();
        }
    }

    /// <summary>Two SQLite databases in the store: "shop" (invoices, <paramref name="rows"/> rows) and "audit" (events, half as many).</summary>
    public static void AddSqlDatabases(StorageEnvironment environment, int rows)
    {
        using var registration = VoronSqlite.Register(environment, "pg-tests-" + Guid.NewGuid().ToString("N")[..8]);
        foreach (var (database, sql) in new[]
                 {
                     ("shop", $"CREATE TABLE invoices(id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount REAL NOT NULL); " +
                              $"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows}) INSERT INTO invoices SELECT i, 'customer ' || (i % 50), i * 1.25 FROM n;"),
                     ("audit", $"CREATE TABLE events(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, at TEXT NOT NULL); " +
                               $"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows / 2}) INSERT INTO events SELECT i, 'kind ' || (i % 3), '2026-12-07T00:00:' || (i % 60) FROM n;"),
                 })
        {
            using var connection = registration.OpenConnection(database);
            using var command = connection.CreateCommand();
            command.CommandText = sql;
            command.ExecuteNonQuery();
        }
    }

    /// <summary>A row count over a plain SQLite file.</summary>
    public static long CountRows(string file, string table)
    {
        using var connection = new SqliteConnection($"Data Source={file};Mode=ReadOnly;Pooling=False");
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = $"SELECT count(*) FROM {table}";
        return (long)command.ExecuteScalar()!;
    }
}

/// <summary>The Marten document type of the User collection (Marten's table: mt_doc_user).</summary>
public sealed class User
{
    public string Id { get; set; } = "";

    public string Name { get; set; } = "";

    public int Age { get; set; }

    public string City { get; set; } = "";

    public List<string> Tags { get; set; } = [];

    public double Score { get; set; }
}
