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
}
