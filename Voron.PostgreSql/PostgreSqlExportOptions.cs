namespace Voron.PostgreSql;

/// <summary>Options of <see cref="PostgreSqlExport.ExportAsync"/>.</summary>
public sealed class PostgreSqlExportOptions
{
    /// <summary>The PostgreSQL schema the tables go to; created when missing. <c>public</c> by default (Marten's default schema).</summary>
    public string Schema { get; set; } = "public";

    /// <summary>Export only this collection; null (the default) exports every collection.</summary>
    public string? Collection { get; set; }

    /// <summary>The table of a collection; null: <see cref="PostgreSqlExport.DefaultTableName"/>.</summary>
    public Func<string, string>? TableName { get; set; }

    /// <summary>What goes into <c>mt_dotnet_type</c> for a collection (Marten writes the type's full name there, for information only); null writes NULL.</summary>
    public Func<string, string?>? DotNetTypeName { get; set; }

    /// <summary>The top-level JSON property that carries the document's id in the data column (PE5); <c>Id</c> by default; null leaves the JSON as stored.</summary>
    public string? IdProperty { get; set; } = "Id";

    /// <summary>Documents per COPY and per committed progress step (PE1); 10,000 by default.</summary>
    public int BatchSize { get; set; } = 10_000;

    /// <summary>Receives progress after every batch.</summary>
    public IProgress<PostgreSqlExportProgress>? Progress { get; set; }
}
