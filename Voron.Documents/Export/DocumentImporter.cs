using System.Diagnostics;
using System.Runtime.CompilerServices;
using Voron.Documents.Diagnostics;
using Voron.Documents.Storage;

namespace Voron.Documents.Export;

/// <summary>
/// <see cref="DocumentStore.ImportAsync"/>: reads JSON Lines, turns each line into a prepared write
/// or a counted refusal (XP3, XP4 in Export/DocumentExporter.cs), and stores the writes through the
/// bulk-insert path. Its seams are the store's: <c>importLine</c> parses the reader's current line,
/// <c>bulkWrite</c> stores a stream of writes in batches.
/// </summary>
internal sealed class DocumentImporter(
    DocumentsTelemetry telemetry,
    int maxLineBytes,
    Func<JsonLineReader, ImportState, PreparedWrite?> importLine,
    Func<IAsyncEnumerable<PreparedWrite>, CancellationToken, Task> bulkWrite)
{
    /// <summary>Imports every line of <paramref name="source"/>; the batches stored before a failure stay stored.</summary>
    public async Task<DocumentImportResult> RunAsync(Stream source, DocumentImportOptions options, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var state = new ImportState(options.MaxRejectionsKept);
        var operation = telemetry.Start(DocumentsDiagnostics.Operations.BulkInsert, null);
        try
        {
            using var reader = new JsonLineReader(source, maxLineBytes);
            await bulkWrite(ReadLines(reader, state, options.Progress, cancellationToken), cancellationToken).ConfigureAwait(false);
            if (reader.LineNumber % 10_000 != 0 || reader.LineNumber == 0)
            {
                options.Progress?.Report(reader.LineNumber); // the end, unless ReadLines just reported it
            }
            foreach (var (collection, count) in state.PerCollection)
            {
                telemetry.RecordWritten(collection, count);
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

            var write = importLine(reader, state);
            if (write != null)
            {
                yield return write;
            }
        }
    }
}
