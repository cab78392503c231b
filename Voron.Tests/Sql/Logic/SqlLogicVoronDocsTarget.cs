namespace Voron.Tests.Sql.Logic;

/// <summary>
/// Converted tables as voron_docs virtual tables whose columns are JSON paths, and their indexes as
/// <see cref="IndexDefinition"/>s of the bound document store (docs/sql.md, SQL over documents):
/// <c>CREATE TABLE t1(a INTEGER, b VARCHAR(30))</c> becomes
/// <c>CREATE VIRTUAL TABLE t1 USING voron_docs(t1, id HIDDEN, body HIDDEN, a='$.a' INTEGER, b='$.b' TEXT)</c>:
/// id and body hidden, so <c>SELECT *</c> and <c>INSERT INTO t1 VALUES(...)</c> see the script's
/// columns only, each with the affinity of the script's declared type.
/// </summary>
internal sealed class SqlLogicVoronDocsTarget(DocumentStore documents) : ISqlLogicTarget
{
    public string Name => "voron_docs";

    public static string CreateVirtualTable(SqlLogicTable table, string collection)
    {
        var sql = new StringBuilder();
        sql.Append(CultureInfo.InvariantCulture, $"CREATE VIRTUAL TABLE {table.Name} USING voron_docs({collection}, id HIDDEN, body HIDDEN");
        foreach (var column in table.Columns)
        {
            sql.Append(CultureInfo.InvariantCulture, $", {column.Name}='{SqlLogicIndex.PathOf(column.Name)}'");
            if (column.Affinity.Length != 0)
            {
                sql.Append(' ').Append(column.Affinity);
            }
        }

        return sql.Append(')').ToString();
    }

    public string? CreateTable(SqliteConnection connection, SqlLogicTable table, string collection, IReadOnlyList<SqlLogicIndex> uniqueKeys)
    {
        connection.Execute(CreateVirtualTable(table, collection));
        foreach (var key in uniqueKeys)
        {
            Ensure(key);
        }

        return null;
    }

    public string? CreateIndex(SqliteConnection connection, SqlLogicIndex index)
    {
        try
        {
            Ensure(index);
            return null;
        }
        catch (UniqueConstraintException e)
        {
            return e.Message; // a UNIQUE index over rows that share a value: SQLite's CREATE UNIQUE INDEX fails too
        }
    }

    public string? DropIndex(SqliteConnection connection, SqlLogicIndex index) =>
        documents.DropIndexAsync(index.Collection, index.Name).GetAwaiter().GetResult() ? null : $"no such index: {index.Name}";

    public void TableDropped(SqliteConnection connection, IReadOnlyList<SqlLogicIndex> indexes)
    {
        foreach (var index in indexes)
        {
            documents.DropIndexAsync(index.Collection, index.Name).GetAwaiter().GetResult();
        }
    }

    private void Ensure(SqlLogicIndex index) => documents.EnsureIndexAsync(index.ToDefinition()).GetAwaiter().GetResult();
}
