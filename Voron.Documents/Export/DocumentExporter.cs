using System.Buffers;
using System.Diagnostics;

namespace Voron.Documents.Export;

// Export and import — JSON Lines (docs/documents.md, "Export and import"). The export runs here
// (DocumentExporter, over ExportCursor); the import in DocumentImporter, over JsonLineReader and
// ImportMetadata.
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

/// <summary><see cref="DocumentStore.ExportAsync"/>: one snapshot's documents written to a stream in chunks.</summary>
internal static class DocumentExporter
{
    private const int BufferBytes = 1 << 20;

    /// <summary>Writes the documents of one snapshot of <paramref name="environment"/> to <paramref name="destination"/> (XP1, XP2); "now" for expiry (XE1) comes from <paramref name="clock"/>.</summary>
    public static async Task<DocumentExportResult> WriteAsync(StorageEnvironment environment, TimeProvider clock, Stream destination, DocumentExportOptions? options,
        CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        using var read = environment.BeginRead(); // XP1
        using var cursor = new ExportCursor(read, environment.Path, options?.Collection, options?.Progress, clock.GetUtcNow().UtcTicks);
        var buffer = ArrayPool<byte>.Shared.Rent(BufferBytes);
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
}
