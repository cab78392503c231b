using System.Buffers;
using System.Buffers.Text;
using System.Text.Json;

namespace Voron.Documents.AspNetCore.Http;

/// <summary>
/// Frames changes as server-sent events into a buffer writer (the response's pipe), without
/// reflection: one <see cref="Utf8JsonWriter"/> reused for every event's data line.
/// </summary>
/// <remarks>
/// An event (SE4, SE6):
/// <code>
/// id: 42
/// event: stored
/// data: {"id":"products/1","collection":"products","version":42,"lastModified":"2026-11-27T12:00:00+00:00"}
/// (blank line)
/// </code>
/// </remarks>
internal sealed class ChangeEventWriter(IBufferWriter<byte> output) : IDisposable
{
    private readonly Utf8JsonWriter _json = new(output); // default escaping: every control character is \uXXXX (SE6)

    /// <summary>Writes one change's event; returns the bytes written.</summary>
    public int Write(DocumentChange change)
    {
        var written = Literal("id: "u8);
        written += Number(change.Version);
        written += Literal(change.Kind == DocumentChangeKind.Deleted ? "\nevent: deleted\ndata: "u8 : "\nevent: stored\ndata: "u8);
        _json.Reset(output);
        _json.WriteStartObject();
        _json.WriteString("id"u8, change.Id);
        _json.WriteString("collection"u8, change.Collection);
        _json.WriteNumber("version"u8, change.Version);
        _json.WriteString("lastModified"u8, change.LastModified);
        _json.WriteEndObject();
        _json.Flush();
        written += (int)_json.BytesCommitted;
        return written + Literal("\n\n"u8);
    }

    /// <summary>
    /// The event that ends a stream whose position was pruned while it ran (SE2): <c>event: error</c>,
    /// data with the requested and the oldest retained position. It has no id, so a reconnecting
    /// client keeps its last one and is refused with 410.
    /// </summary>
    public int WritePositionError(long requested, long oldest, string message)
    {
        var written = Literal("event: error\ndata: "u8);
        _json.Reset(output);
        _json.WriteStartObject();
        _json.WriteString("error"u8, "position");
        _json.WriteNumber("requested"u8, requested);
        _json.WriteNumber("oldest"u8, oldest);
        _json.WriteString("detail"u8, message);
        _json.WriteEndObject();
        _json.Flush();
        written += (int)_json.BytesCommitted;
        return written + Literal("\n\n"u8);
    }

    /// <summary>A comment line an idle stream sends so that proxies keep the connection (clients ignore it).</summary>
    public int WriteKeepAlive() => Literal(": keep-alive\n\n"u8);

    public void Dispose() => _json.Dispose();

    private int Literal(ReadOnlySpan<byte> bytes)
    {
        output.Write(bytes);
        return bytes.Length;
    }

    private int Number(long value)
    {
        var span = output.GetSpan(20);
        Utf8Formatter.TryFormat(value, span, out var length);
        output.Advance(length);
        return length;
    }
}
