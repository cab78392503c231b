namespace Voron.Tests.Sql.Logic;

/// <summary>
/// Where a converted script's tables and indexes are made. <see cref="SqlLogicVoronDocsTarget"/>
/// is the real one (voron_docs tables, IndexDefinitions); <see cref="SqlLogicPlainTarget"/> makes
/// ordinary SQLite tables and indexes from the same conversion, which checks the conversion on its
/// own (same statements, same skips, same plan capture) against SQLite's results.
/// Each method returns null on success, else the error message (a script may expect the error).
/// </summary>
internal interface ISqlLogicTarget
{
    /// <summary>Short name for the test output ("voron_docs", "plain").</summary>
    string Name { get; }

    /// <summary>Creates <paramref name="table"/> over <paramref name="collection"/>, with the indexes of its unique keys.</summary>
    string? CreateTable(SqliteConnection connection, SqlLogicTable table, string collection, IReadOnlyList<SqlLogicIndex> uniqueKeys);

    string? CreateIndex(SqliteConnection connection, SqlLogicIndex index);

    /// <summary>Drops the index; an error when there is none.</summary>
    string? DropIndex(SqliteConnection connection, SqlLogicIndex index);

    /// <summary>The script's DROP TABLE succeeded: drop whatever of <paramref name="indexes"/> SQLite did not.</summary>
    void TableDropped(SqliteConnection connection, IReadOnlyList<SqlLogicIndex> indexes);
}
