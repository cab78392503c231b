namespace Voron.Tests.Sql.Logic;

/// <summary>
/// An index of a converted table: from a script's <c>CREATE [UNIQUE] INDEX name ON table(columns)</c>
/// (<see cref="FromScript"/>) or from a column's PRIMARY KEY / UNIQUE constraint. On voron_docs it
/// is the <see cref="IndexDefinition"/> <see cref="ToDefinition"/> gives: one JSON path per column,
/// in order (an ASC / DESC in the script is dropped: document indexes have one order).
/// </summary>
internal sealed record SqlLogicIndex(string Name, string Table, string Collection, IReadOnlyList<string> Columns, bool IsUnique, bool FromScript)
{
    /// <summary>The JSON path of a converted table's column: <c>$.name</c>.</summary>
    public static string PathOf(string column) => "$." + column;

    public IndexDefinition ToDefinition()
    {
        var definition = new IndexDefinition(Collection, Name, [.. Columns.Select(PathOf)]);
        return IsUnique ? definition.AsUnique() : definition;
    }
}
