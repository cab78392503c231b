using Microsoft.Data.Sqlite;

namespace Voron.Tests.Sql.Documents;

/// <summary>
/// Ids in SQLite's order (SD4): a TEXT column with BINARY collation orders by UTF-8 bytes, which
/// is code point order, and so do the store's keys. .NET's ordinal string order is UTF-16's, which
/// puts U+10000 and up (surrogate pairs) before U+E000–U+FFFF.
/// </summary>
public sealed class VoronDocsIdOrderTests
{
    private const string Create = "CREATE VIRTUAL TABLE t USING voron_docs(K, v='$.v')";

    // UTF-8 order: a < U+E000 < U+FFFD < U+10000 < U+1F600 (UTF-16 order puts the last two first).
    private static readonly string[] InUtf8Order = ["k/a", "k/\uE000", "k/\uFFFD", "k/\U00010000", "k/\U0001F600"];

    private static async Task<DocsStore> StoreWithAsync(params string[] ids)
    {
        var store = new DocsStore();
        foreach (var id in ids)
        {
            await store.StoreRawAsync("K", id, "{\"v\":1}");
        }

        return store;
    }

    private static List<object?> Ids(SqliteConnection connection, string sql) => [.. connection.Query(sql).Select(r => r[0])];

    /// <summary>The id IN plan sorted its list with .NET's ordinal (UTF-16) order: astral ids came before U+E000–U+FFFF, and LIMIT kept the wrong ones.</summary>
    [Fact]
    public async Task Id_in_with_order_by_id_returns_the_ids_in_utf8_byte_order()
    {
        using var store = await StoreWithAsync(InUtf8Order);
        using var connection = store.Open();
        connection.Execute(Create);
        var list = string.Join(", ", InUtf8Order.Reverse().Select(id => $"'{id}'"));
        Assert.Equal(InUtf8Order, Ids(connection, $"SELECT id FROM t WHERE id IN ({list}) ORDER BY id"));
        Assert.Equal(InUtf8Order.Reverse(), Ids(connection, $"SELECT id FROM t WHERE id IN ({list}) ORDER BY id DESC"));
        Assert.Equal(["k/a", "k/\uE000"], Ids(connection, $"SELECT id FROM t WHERE id IN ({list}) ORDER BY id LIMIT 2"));
    }

    /// <summary>
    /// In a transaction that wrote documents of the collection, ORDER BY id and id ranges merged the
    /// snapshot's ids with the transaction's in a SortedSet ordered by UTF-16: the rows came out in
    /// the wrong order, and with LIMIT the wrong rows came back.
    /// </summary>
    [Fact]
    public async Task Order_by_id_and_id_ranges_in_a_transaction_that_wrote_the_collection_follow_utf8_byte_order()
    {
        using var store = await StoreWithAsync("k/a", "k/\U00010000");
        using var connection = store.Open();
        connection.Execute(Create);
        connection.Execute("BEGIN IMMEDIATE");
        connection.Execute("INSERT INTO t(id, v) VALUES ('k/\uE000', 2), ('k/\U0001F600', 2), ('k/\uFFFD', 2)");
        Assert.Equal(InUtf8Order, Ids(connection, "SELECT id FROM t ORDER BY id"));
        Assert.Equal(InUtf8Order.Reverse(), Ids(connection, "SELECT id FROM t ORDER BY id DESC"));
        Assert.Equal(["k/\uE000"], Ids(connection, "SELECT id FROM t WHERE id > 'k/a' ORDER BY id LIMIT 1"));
        Assert.Equal(["k/\uE000", "k/\uFFFD"], Ids(connection, "SELECT id FROM t WHERE id > 'k/a' AND id < 'k/\U00010000' ORDER BY id"));
        connection.Execute("COMMIT");
        Assert.Equal(InUtf8Order, Ids(connection, "SELECT id FROM t ORDER BY id"));
    }
}
