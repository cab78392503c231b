using Voron.Documents.Export;
using Voron.Documents.Storage;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
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
        ThrowIfReplica(nameof(ImportAsync)); // I9: before the first line is read
        options ??= new DocumentImportOptions();
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxRejectionsKept, nameof(options));
        var importer = new DocumentImporter(Telemetry, Options.MaxDocumentBytes, PrepareRaw, (writes, ct) => Bulk.WriteAsync(writes, null, ct));
        return await importer.RunAsync(source, options, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// A prepared write of raw JSON (an import line without its <c>@metadata</c>): the id and
    /// collection already validated, the JSON one object within the size limit. Raises the id
    /// counters as an explicit id does (I5); no expected version (an existing document is replaced).
    /// </summary>
    private PreparedWrite PrepareRaw(string id, byte[] idBytes, string collection, byte[] collectionBytes, byte[] json) =>
        Writes.Bulk(id, idBytes, collection, collectionBytes, json, generated: false);
}
