using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.Tests.Sql.VirtualTables;

/// <summary>Plain in-memory SQLite connections with toy modules registered on them.</summary>
internal static class Toy
{
    public static SqliteConnection Open(params VirtualTableModule[] modules)
    {
        var connection = new SqliteConnection("Data Source=:memory:;Pooling=False");
        connection.Open();
        foreach (var module in modules)
        {
            VirtualTableRegistry.Register(connection.Handle!.DangerousGetHandle(), module);
        }

        return connection;
    }

    public static List<long> Longs(this SqliteConnection connection, string sql) =>
        [.. connection.Rows(sql).Select(r => Convert.ToInt64(r[0], System.Globalization.CultureInfo.InvariantCulture))];

    public static string Plan(this SqliteConnection connection, string sql) =>
        string.Join("\n", connection.Rows("EXPLAIN QUERY PLAN " + sql).Select(r => r[3]));
}
