using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.Tests.Sql.VirtualTables;

/// <summary>Registration on one connection and on every connection opened afterwards.</summary>
public sealed class VirtualTableRegistryTests
{
    [Fact]
    public void RegisterOnEveryConnection_gives_the_module_to_connections_opened_afterwards_only()
    {
        // A name used nowhere else: the auto extension is process-wide.
        const string name = "interop_registry_auto_series";
        using var before = Toy.Open();

        VirtualTableRegistry.RegisterOnEveryConnection(new SeriesModule(name));
        VirtualTableRegistry.RegisterOnEveryConnection(new SeriesModule(name) { Fault = _ => new InvalidOperationException("the second module of a name is ignored") });

        using var after = Toy.Open();
        Assert.Equal([1, 2, 3], after.Longs($"SELECT value FROM {name}(1, 3)"));
        var error = Assert.Throws<Microsoft.Data.Sqlite.SqliteException>(() => before.Longs($"SELECT value FROM {name}(1, 3)"));
        Assert.Contains($"no such table: {name}", error.Message);
    }

    [Fact]
    public void An_eponymous_only_module_cannot_be_named_in_CREATE_VIRTUAL_TABLE()
    {
        using var connection = Toy.Open(new SeriesModule("interop_registry_series"));

        var error = Assert.Throws<Microsoft.Data.Sqlite.SqliteException>(() => connection.Execute("CREATE VIRTUAL TABLE s USING interop_registry_series"));

        Assert.Contains("no such module", error.Message);
    }

    [Fact]
    public void A_module_registered_on_one_connection_serves_CREATE_VIRTUAL_TABLE_there_only()
    {
        var module = new KeyValueModule("interop_registry_kv");
        using var with = Toy.Open(module);
        using var without = Toy.Open();

        with.Execute("CREATE VIRTUAL TABLE t USING interop_registry_kv");
        with.Execute("INSERT INTO t VALUES ('a', x'00ff'), ('b', ''), ('c', 1.5), ('d', NULL)");

        Assert.Equal("Create", module.Log[0]);
        var rows = with.Rows("SELECT k, v, typeof(v) FROM t ORDER BY k");
        Assert.Equal(new byte[] { 0, 255 }, rows[0][1]);
        Assert.Equal(["blob", "text", "real", "null"], rows.Select(r => (string)r[2]!));
        Assert.Equal("", rows[1][1]);
        Assert.Equal(1.5, rows[2][1]);
        Assert.Throws<Microsoft.Data.Sqlite.SqliteException>(() => without.Execute("CREATE VIRTUAL TABLE t USING interop_registry_kv"));
    }
}
