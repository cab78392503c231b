namespace Voron.Documents;

/// <summary>
/// Names of what the document store publishes for OpenTelemetry: one <c>Meter</c> and one
/// <c>ActivitySource</c>, both named <see cref="MeterName"/>, following OpenTelemetry's database
/// conventions. <c>builder.AddMeter(DocumentsDiagnostics.MeterName)</c> and
/// <c>builder.AddSource(DocumentsDiagnostics.ActivitySourceName)</c> collect them;
/// <c>dotnet-counters monitor --counters Voron.Documents</c> shows them without code.
/// </summary>
public static class DocumentsDiagnostics
{
    /// <summary>The meter's name.</summary>
    public const string MeterName = "Voron.Documents";

    /// <summary>The activity source's name.</summary>
    public const string ActivitySourceName = "Voron.Documents";

    /// <summary>Histogram (seconds) of every operation: tags <c>db.system.name</c>, <c>db.operation.name</c>, <c>db.collection.name</c> (when one), <c>db.namespace</c>, <c>error.type</c> (when it failed).</summary>
    public const string OperationDuration = "db.client.operation.duration";

    /// <summary>Histogram of the documents a query returned (OpenTelemetry's <c>db.client.response.returned_rows</c>).</summary>
    public const string ReturnedRows = "db.client.response.returned_rows";

    /// <summary>Counter of documents written (stored or deleted) by sessions and bulk inserts; tag <c>db.collection.name</c>.</summary>
    public const string DocumentsWritten = "voron.documents.written";

    /// <summary>The value of <c>db.system.name</c>.</summary>
    public const string SystemName = "voron";

    /// <summary>Values of <c>db.operation.name</c>.</summary>
    public static class Operations
    {
        /// <summary>A session's SaveChangesAsync.</summary>
        public const string SaveChanges = "save_changes";
        /// <summary>A session's load by id.</summary>
        public const string Load = "load";
        /// <summary>A query run.</summary>
        public const string Query = "query";
        /// <summary>A bulk insert.</summary>
        public const string BulkInsert = "bulk_insert";
        /// <summary>Creating or checking an index.</summary>
        public const string EnsureIndex = "ensure_index";
        /// <summary>Dropping an index.</summary>
        public const string DropIndex = "drop_index";
        /// <summary>The store's integrity check.</summary>
        public const string CheckIntegrity = "check_integrity";
    }
}
