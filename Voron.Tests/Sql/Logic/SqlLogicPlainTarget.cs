namespace Voron.Tests.Sql.Logic;

/// <summary>
/// The conversion on ordinary SQLite tables: each converted table is <c>CREATE TABLE</c> with the
/// columns' affinities and no constraints, each unique key a <c>CREATE UNIQUE INDEX</c>, each
/// script index a <c>CREATE INDEX</c> of the same name. It runs exactly the statements the
/// voron_docs conversion runs, with the same skips, so it checks the conversion (and that its
/// changes — constraints as unique indexes, a fresh collection per re-created table — keep the
/// scripts' results) without the module.
/// </summary>
internal sealed class SqlLogicPlainTarget : ISqlLogicTarget
{
    public string Name => "plain";

    public string? CreateTable(SqliteConnection connection, SqlLogicTable table, string collection, IReadOnlyList<SqlLogicIndex> uniqueKeys)
    {
        var columns = table.Columns.Select(c => c.Affinity.Length == 0 ? c.Name : c.Name + " " + c.Affinity);
        connection.Execute($"CREATE TABLE {table.Name}({string.Join(", ", columns)})");
        foreach (var key in uniqueKeys)
        {
            connection.Execute(CreateIndexSql(key));
        }

        return null;
    }

    public string? CreateIndex(SqliteConnection connection, SqlLogicIndex index) => Try(connection, CreateIndexSql(index));

    public string? DropIndex(SqliteConnection connection, SqlLogicIndex index) => Try(connection, $"DROP INDEX {index.Name}");

    public void TableDropped(SqliteConnection connection, IReadOnlyList<SqlLogicIndex> indexes)
    {
        // SQLite dropped the table's indexes with it
    }

    private static string CreateIndexSql(SqlLogicIndex index) =>
        $"CREATE {(index.IsUnique ? "UNIQUE " : "")}INDEX {index.Name} ON {index.Table}({string.Join(", ", index.Columns)})";

    private static string? Try(SqliteConnection connection, string sql)
    {
        try
        {
            connection.Execute(sql);
            return null;
        }
        catch (SqliteException e)
        {
            return e.Message;
        }
    }
}
