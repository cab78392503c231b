using System.Buffers;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Voron.Documents.Export;
using Voron.Documents.Storage;

namespace Voron.Documents;

// Export and import — JSON Lines (docs/documents.md, "Export and import").
//
//   XP1. An export reads one snapshot (one read transaction): collections in the UTF-8 byte order
//        of their names, documents in id order within each; writers are not blocked.
//   XP2. An exported line is the stored object's own properties, byte for byte (minified when the
//        stored JSON has line breaks), without any top-level "@metadata" of its own, followed by
//        "@metadata":{"@id","@collection","@version","@last-modified"} written by the export:
//        a line never has the key twice.
//   XP3. An import stores a line's object minus its top-level "@metadata" and one comma next
//        to it; every other byte stays, the whitespace between properties included. Export
//        writes a body's bytes up to its closing brace, then ,"@metadata":{...}} (no comma when
//        the body has no property), so import gives that body back byte for byte, and
//        export -> import -> export gives the same lines but for "@version" and "@last-modified".
//   XP4. An import line that cannot be stored on its own (not JSON, no valid @id or
//        @collection, too large) is counted and reported with its line number and the import
//        goes on; a repeated id is not refused: the later line replaces the earlier one (bulk
//        insert's rule). What only the store can refuse — an id stored in another collection, a
//        unique index's value taken — ends the import as it ends a bulk insert: the batches
//        before it stay stored, and the exception names the document.

public sealed partial class DocumentStore
{
    private const int ExportBufferBytes = 1 << 20;

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

        var started = Stopwatch.GetTimestamp();
        using var read = Environment.BeginRead(); // XP1
        using var cursor = new ExportCursor(read, Path, options?.Collection, options?.Progress, NowTicks);
        var buffer = ArrayPool<byte>.Shared.Rent(ExportBufferBytes);
        long bytes = 0;
        try
        {
            while (!cursor.Done)
            {
                var filled = cursor.Fill(ref buffer, cancellationToken);
                if (filled > 0)
                {
                    await destination.WriteAsync(buffer.AsMemory(0, filled), cancellationToken).ConfigureAwait(false);
                    bytes += filled;
                }
            }

            await destination.FlushAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        if (cursor.Documents % 10_000 != 0 || cursor.Documents == 0)
        {
            options?.Progress?.Report(cursor.Documents); // the end, unless Fill just reported it
        }
        return new DocumentExportResult(read.Id, cursor.Documents, bytes, Stopwatch.GetElapsedTime(started));
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
        var started = Stopwatch.GetTimestamp();
        var state = new ImportState(options.MaxRejectionsKept);
        var operation = Telemetry.Start(DocumentsDiagnostics.Operations.BulkInsert, null);
        try
        {
            using var reader = new JsonLineReader(source, Options.MaxDocumentBytes + ImportLineSlackBytes);
            await BulkWriteAsync(ReadLines(reader, state, options.Progress, cancellationToken), null, cancellationToken).ConfigureAwait(false);
            if (reader.LineNumber % 10_000 != 0 || reader.LineNumber == 0)
            {
                options.Progress?.Report(reader.LineNumber); // the end, unless ReadLines just reported it
            }
            foreach (var (collection, count) in state.PerCollection)
            {
                Telemetry.RecordWritten(collection, count);
            }

            operation.Complete((int)Math.Min(state.Imported, int.MaxValue));
            return new DocumentImportResult(state.Imported, state.Rejected, state.Rejections, Stopwatch.GetElapsedTime(started));
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    private async IAsyncEnumerable<PreparedWrite> ReadLines(JsonLineReader reader, ImportState state, IProgress<long>? progress, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (reader.LineNumber % 10_000 == 0)
            {
                progress?.Report(reader.LineNumber);
            }

            var write = ImportLine(reader, state);
            if (write != null)
            {
                yield return write;
            }
        }
    }
}
