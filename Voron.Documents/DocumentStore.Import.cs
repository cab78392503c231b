using System.Buffers;
using Voron.Documents.Export;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    // A line may exceed MaxDocumentBytes by its "@metadata" (an id of 512 bytes escaped is 3 KiB).
    private const int ImportLineSlackBytes = 64 << 10;

    /// <summary>The prepared write of the reader's current line, or null when it is blank or refused (counted in <paramref name="state"/>, XP4).</summary>
    private PreparedWrite? ImportLine(JsonLineReader reader, ImportState state)
    {
        if (reader.TooLong || reader.Line.Length > Options.MaxDocumentBytes + ImportLineSlackBytes)
        {
            state.Reject(reader.LineNumber, $"the line is longer than {Options.MaxDocumentBytes + ImportLineSlackBytes:N0} bytes; documents are at most {Options.MaxDocumentBytes:N0} (DocumentStoreOptions.MaxDocumentBytes).");
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

        if (length > Options.MaxDocumentBytes)
        {
            return $"the document is {length:N0} bytes of JSON; the store takes at most {Options.MaxDocumentBytes:N0} (DocumentStoreOptions.MaxDocumentBytes).";
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

        write = PrepareRaw(metadata.Id!, idBytes, metadata.Collection!, collectionBytes, scratch.AsSpan(0, length).ToArray());
        return null;
    }
}
