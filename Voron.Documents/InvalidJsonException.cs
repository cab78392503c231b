using System.Text.Json;

namespace Voron.Documents;

/// <summary>
/// Raw UTF-8 given to the store is not one valid JSON object: bad syntax, invalid UTF-8, too
/// deep, or not an object at the top. <see cref="BytePosition"/> is where the bytes went wrong.
/// Nothing was stored. A <see cref="JsonException"/>, so handlers of System.Text.Json's errors see it.
/// </summary>
public sealed class InvalidJsonException : JsonException
{
    /// <summary>
    /// The input for document <paramref name="id"/> (null: not known) is invalid at byte
    /// <paramref name="bytePosition"/>, which is on line <paramref name="lineNumber"/> at byte
    /// <paramref name="bytePositionInLine"/> (both counted from 0; the message counts from 1), for
    /// <paramref name="reason"/>; <paramref name="inner"/> is the parser's error, when there was one.
    /// </summary>
    public InvalidJsonException(string? id, long bytePosition, long lineNumber, long bytePositionInLine, string reason, Exception? inner = null)
        : base($"Invalid JSON{(id == null ? "" : $" for document '{id}'")} at byte {bytePosition} (line {lineNumber + 1}, byte {bytePositionInLine + 1} of the line): {reason}",
            null, lineNumber, bytePositionInLine, inner)
    {
        Id = id;
        BytePosition = bytePosition;
        Reason = reason;
    }

    /// <summary>The document's id, when known.</summary>
    public string? Id { get; }

    /// <summary>The offset, from the first byte of the input, of the byte where the input stopped being valid.</summary>
    public long BytePosition { get; }

    /// <summary>What was wrong there.</summary>
    public string Reason { get; }
}
