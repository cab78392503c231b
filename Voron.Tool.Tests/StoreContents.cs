using System.Text.Json.Nodes;
using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs;

namespace Voron.Tool.Tests;

/// <summary>What a store holds, read through the public APIs, so tests can compare two stores (backup, restore, compact, import).</summary>
internal static class StoreContents
{
    /// <summary>Every document: id -> (collection, JSON without @metadata), ids in ordinal order.</summary>
    public static async Task<SortedDictionary<string, (string Collection, JsonNode? Json)>> DocumentsAsync(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var store = DocumentStore.Open(environment);
        var documents = new SortedDictionary<string, (string, JsonNode?)>(StringComparer.Ordinal);
        await using var session = store.OpenSession();
        foreach (var collection in store.GetStatistics().Collections)
        {
            foreach (var raw in await session.QueryRaw(collection.Name).AllowScan().ToListAsync())
            {
                using (raw)
                {
                    documents.Add(raw.Id, (raw.Metadata.Collection, JsonNode.Parse(raw.Json.Span)));
                }
            }
        }

        return documents;
    }

    /// <summary>Asserts both stores hold the same documents (ids, collections and JSON; versions aside).</summary>
    public static async Task AssertSameDocumentsAsync(string expectedDirectory, string actualDirectory)
    {
        var expected = await DocumentsAsync(expectedDirectory);
        var actual = await DocumentsAsync(actualDirectory);
        Assert.Equal(expected.Keys, actual.Keys);
        foreach (var (id, (collection, json)) in expected)
        {
            Assert.Equal(collection, actual[id].Collection);
            Assert.True(JsonNode.DeepEquals(json, actual[id].Json), $"{id}: {json?.ToJsonString()} != {actual[id].Json?.ToJsonString()}");
        }
    }

    /// <summary>The ids the index Order/ByCustomer returns for each customer, defining the index first when <paramref name="ensureIndex"/>.</summary>
    public static async Task<List<string>> OrdersByCustomerAsync(string directory, bool ensureIndex = false)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        await using var store = DocumentStore.Open(environment);
        if (ensureIndex)
        {
            await store.EnsureIndexAsync(new IndexDefinition("Order", "ByCustomer", "$.customer"));
        }

        var results = new List<string>();
        await using var session = store.OpenSession();
        for (var i = 0; i < TestStores.Customers; i++)
        {
            var query = session.QueryRaw("Order").Where("customer", QueryOperator.Equal, $"customers/{i}");
            Assert.Contains("ByCustomer", query.Explain()); // served by the index, not a scan
            foreach (var raw in await query.ToListAsync())
            {
                using (raw)
                {
                    results.Add($"customers/{i} -> {raw.Id}");
                }
            }
        }

        return results;
    }

    /// <summary>The rows of <paramref name="sql"/> on the database "shop", each as its values joined with '|'.</summary>
    public static List<string> ShopRows(string directory, string sql)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        using var store = DocumentStore.Open(environment);
        using var registration = VoronSqlite.Register(environment, "tool-tests-" + Guid.NewGuid().ToString("N")).UseDocuments(store);
        using var connection = new SqliteConnection($"Data Source=shop;Vfs={registration.VfsName};Pooling=False");
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        using var reader = command.ExecuteReader();
        var rows = new List<string>();
        while (reader.Read())
        {
            rows.Add(string.Join("|", Enumerable.Range(0, reader.FieldCount).Select(i => Convert.ToString(reader.GetValue(i), System.Globalization.CultureInfo.InvariantCulture))));
        }

        return rows;
    }

    /// <summary>The entries of the "kv" tree <see cref="TestStores.CreateClean"/> writes.</summary>
    public static int CleanStoreEntries(string directory)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        using var read = environment.BeginRead();
        return (int)(read.OpenTree("kv") ?? throw new InvalidOperationException("no kv tree")).Count;
    }
}
