using System.Buffers;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Voron.Documents.Diagnostics;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents.Export;

/// <summary>
/// <see cref="DocumentStore.ImportAsync"/>: reads JSON Lines, turns each line into a prepared write
/// or a counted refusal (XP3, XP4 in Export/DocumentExporter.cs), and stores the writes through the
/// bulk-insert path. Its seams are the store's: <c>prepare</c> builds the write of a line's
/// document (id, id bytes, collection, collection bytes, the JSON without <c>@metadata</c>, all
/// checked) through the write port, <c>bulkWrite</c> stores a stream of writes in batches.
/// </summary>
internal sealed class DocumentImporter(
    DocumentsTelemetry telemetry,
    int maxDocumentBytes,
    Func<string, byte[], string, byte[], byte[], PreparedWrite> prepare,
    Func<IAsyncEnumerable<PreparedWrite>, CancellationToken, Task> bulkWrite)
{
    // A line may exceed MaxDocumentBytes by its "@metadata" (an id of 512 bytes escaped is 3 KiB).
    private const int LineSlackBytes = 64 << 10;

    /// <summary>Imports every line of <paramref name="source"/>; the batches stored before a failure stay stored.</summary>
    public async Task<DocumentImportResult> RunAsync(Stream source, DocumentImportOptions options, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        var state = new ImportState(options.MaxRejectionsKept);
        var operation = telemetry.Start(DocumentsDiagnostics.Operations.BulkInsert, null);
        try
        {
            using var reader = new JsonLineReader(source, maxDocumentBytes + LineSlackBytes);
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

            var write = ImportLine(reader, state);
            if (write != null)
            {
                yield return write;
            }
        }
    }

    /// <summary>The prepared write of the reader's current line, or null when it is blank or refused (counted in <paramref name="state"/>, XP4).</summary>
    private PreparedWrite? ImportLine(JsonLineReader reader, ImportState state)
    {
        if (reader.TooLong || reader.Line.Length > maxDocumentBytes + LineSlackBytes)
        {
            state.Reject(reader.LineNumber, $"the line is longer than {maxDocumentBytes + LineSlackBytes:N0} bytes; documents are at most {maxDocumentBytes:N0} (DocumentStoreOptions.MaxDocumentBytes).");
            return null;
        }

        var line = reader.Line;
        if (reader.LineNumber == 1 && line.StartsWith("\uFEFF"u8))
        {
            line = line[3..]; // a UTF-8 byte order mark
        }

        if (line.Trim(" \t"u8).IsEmpty)
        {
            return null;
        }

        var rented = ArrayPool<byte>.Shared.Rent(line.Length);
        try
        {
            var reason = ParseLine(line, rented, out var write);
            if (reason != null)
            {
                state.Reject(reader.LineNumber, reason);
                return null;
            }

            state.Accept(write!.Collection!);
            return write;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    /// <summary>Why <paramref name="line"/> is refused, or null with its <paramref name="write"/>; <paramref name="scratch"/> takes the document without <c>@metadata</c>.</summary>
    private string? ParseLine(ReadOnlySpan<byte> line, byte[] scratch, out PreparedWrite? write)
    {
        write = null;
        try
        {
            JsonValidation.ValidateObject(line, null);
        }
        catch (InvalidJsonException e)
        {
            return "not a JSON object: " + e.Message;
        }

        var length = JsonLineText.WithoutMetadata(line, scratch, readStrings: true, out var metadata);
        var problem = metadata switch
        {
            { Count: 0 } => "no \"@metadata\" property.",
            { Count: > 1 } => "more than one \"@metadata\" property.",
            { NotAnObject: true } => "\"@metadata\" is not an object.",
            { IdCount: 0 } => "no \"@metadata\".\"@id\".",
            { IdCount: > 1 } => "more than one \"@metadata\".\"@id\".",
            { IdIsString: false } => "\"@metadata\".\"@id\" is not a string.",
            { CollectionCount: 0 } => "no \"@metadata\".\"@collection\".",
            { CollectionCount: > 1 } => "more than one \"@metadata\".\"@collection\".",
            { CollectionIsString: false } => "\"@metadata\".\"@collection\" is not a string.",
            _ => null,
        };
        if (problem != null)
        {
            return problem;
        }

        if (length > maxDocumentBytes)
        {
            return $"the document is {length:N0} bytes of JSON; the store takes at most {maxDocumentBytes:N0} (DocumentStoreOptions.MaxDocumentBytes).";
        }

        byte[] idBytes;
        byte[] collectionBytes;
        try
        {
            idBytes = DocumentNames.IdBytes(metadata.Id!, "@id");
            collectionBytes = DocumentNames.CollectionBytes(metadata.Collection!, "@collection");
        }
        catch (ArgumentException e)
        {
            return "invalid " + e.Message;
        }

        write = prepare(metadata.Id!, idBytes, metadata.Collection!, collectionBytes, scratch.AsSpan(0, length).ToArray());
        return null;
    }
}
