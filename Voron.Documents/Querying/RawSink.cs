using System.Buffers;

namespace Voron.Documents.Querying;

/// <summary>
/// Copies each result of a raw query once, from its page (or the decode buffer) into the pooled
/// buffer the <see cref="RawDocument"/> owns (<see cref="IQueryResultSink"/>).
/// </summary>
internal sealed class RawSink : IQueryResultSink
{
    /// <summary>The document of the last result taken; its buffer belongs to whoever takes it.</summary>
    public RawDocument? Current { get; private set; }

    public void Take(QueryCursor cursor, ReadOnlySpan<byte> json)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(Math.Max(1, json.Length));
        json.CopyTo(buffer);
        Current = new RawDocument(cursor.Metadata, buffer, json.Length);
    }
}
