using Voron.Documents.Export;
using Voron.Documents.Storage;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>
    /// Writes the documents of one snapshot to <paramref name="destination"/> as JSON Lines: one
    /// document a line, its own properties followed by
    /// <c>"@metadata": {"@id", "@collection", "@version", "@last-modified"}</c>, as RavenDB's
    /// exports carry metadata. Collections in name order, documents in id order. Writers are not
    /// blocked. The stream is not closed.
    /// </summary>
    /// <remarks>
    /// The document's JSON is written as stored (minified when it holds line breaks);
    /// <c>"@last-modified"</c> is UTC in the round-trip format (<c>2026-11-27T06:00:00.0000000Z</c>).
    /// A document's own top-level <c>"@metadata"</c> property is not written: the export's
    /// replaces it. Lines are written in chunks of about a megabyte; progress is reported every
    /// 10,000 documents and at the end; cancellation is checked between documents (what was
    /// written stays written).
    /// </remarks>
    public async Task<DocumentExportResult> ExportAsync(Stream destination, DocumentExportOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ThrowIfDisposed();
        if (options?.Collection is { } only)
        {
            _ = DocumentNames.CollectionBytes(only, nameof(options));
        }

        return await DocumentExporter.WriteAsync(Environment, Options.TimeProvider, destination, options, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads JSON Lines in the shape <see cref="ExportAsync"/> writes and stores each document
    /// through the bulk-insert path: <c>@metadata.@id</c> and <c>@metadata.@collection</c> are
    /// required, the rest of <c>@metadata</c> is ignored (versions and modification times are the
    /// importing store's own), and the document is stored without <c>@metadata</c>. A document
    /// with an id already stored replaces it. A line that cannot be imported is counted and
    /// reported in the result, and the import goes on. Blank lines are skipped.
    /// </summary>
    /// <remarks>
    /// Lines are UTF-8 (a byte order mark on the first is skipped), of any length, ended by
    /// <c>\n</c> or <c>\r\n</c>. A line is refused when it is not one JSON object, has no
    /// <c>@metadata</c> object (or more than one), its <c>@id</c> or <c>@collection</c> is missing,
    /// repeated, not a string or not valid for the store, or the document is larger than
    /// <see cref="DocumentStoreOptions.MaxDocumentBytes"/>. A repeated id is not refused: the later
    /// line replaces the earlier one. Batches of <see cref="DocumentStoreOptions.BulkInsertBatchSize"/>
    /// are committed as they fill, with their index entries; a batch that fails (a unique index
    /// violation, an id stored in another collection) throws as <see cref="BulkInsertAsync{T}(IAsyncEnumerable{T}, System.Text.Json.Serialization.Metadata.JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>
    /// does, and so does cancellation, the batches before staying saved.
    /// <see cref="DocumentImportResult.Imported"/> counts the lines stored. Progress (lines read)
    /// is reported every 10,000 lines and at the end.
    /// </remarks>
    public async Task<DocumentImportResult> ImportAsync(Stream source, DocumentImportOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ThrowIfDisposed();
        options ??= new DocumentImportOptions();
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxRejectionsKept, nameof(options));
        var importer = new DocumentImporter(Telemetry, Options.MaxDocumentBytes + ImportLineSlackBytes, ImportLine, (writes, ct) => Bulk.WriteAsync(writes, null, ct));
        return await importer.RunAsync(source, options, cancellationToken).ConfigureAwait(false);
    }
}
