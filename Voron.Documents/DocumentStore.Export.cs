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
    public Task<DocumentExportResult> ExportAsync(Stream destination, DocumentExportOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        _ = options;
        _ = Path;
        _ = cancellationToken;
        throw new NotImplementedException("issue 26: DocumentStore.ExportAsync");
    }

    /// <summary>
    /// Reads JSON Lines in the shape <see cref="ExportAsync"/> writes and stores each document
    /// through the bulk-insert path: <c>@metadata.@id</c> and <c>@metadata.@collection</c> are
    /// required, the rest of <c>@metadata</c> is ignored (versions and modification times are the
    /// importing store's own), and the document is stored without <c>@metadata</c>. A document
    /// with an id already stored replaces it. A line that cannot be imported is counted and
    /// reported in the result, and the import goes on. Blank lines are skipped.
    /// </summary>
    public Task<DocumentImportResult> ImportAsync(Stream source, DocumentImportOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        _ = options;
        _ = Path;
        _ = cancellationToken;
        throw new NotImplementedException("issue 26: DocumentStore.ImportAsync");
    }
}
