namespace Voron.PostgreSql;

/// <summary>What <see cref="PostgreSqlExport.ExportAsync"/> did.</summary>
/// <param name="Collections">Each collection exported, in name order.</param>
/// <param name="Duration">How long the export took.</param>
public sealed record PostgreSqlExportResult(IReadOnlyList<PostgreSqlCollectionExport> Collections, TimeSpan Duration)
{
    /// <summary>Documents written by this run (not those an interrupted run had written).</summary>
    public long Written => Collections.Sum(c => c.Written);

    /// <summary>Rows in the tables at the end.</summary>
    public long Rows => Collections.Sum(c => c.Rows);
}

/// <summary>One collection of an export.</summary>
/// <param name="Collection">The collection.</param>
/// <param name="Table">The table, schema-qualified and quoted as PostgreSQL reads it.</param>
/// <param name="Written">Documents written by this run.</param>
/// <param name="Resumed">Documents an earlier, interrupted run had written (0 when this run started the table).</param>
/// <param name="Rows">Rows in the table at the end, checked against the store (PE4).</param>
public sealed record PostgreSqlCollectionExport(string Collection, string Table, long Written, long Resumed, long Rows);

/// <summary>Progress of an export, reported after every batch.</summary>
/// <param name="Collection">The collection being written.</param>
/// <param name="Table">Its table.</param>
/// <param name="Done">Documents of the collection in the table so far (those of an interrupted run included).</param>
/// <param name="Total">Documents in the collection (the store's statistics; expired documents are counted there but not exported).</param>
public readonly record struct PostgreSqlExportProgress(string Collection, string Table, long Done, long Total);
