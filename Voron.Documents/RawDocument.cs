using System.Buffers;

namespace Voron.Documents;

/// <summary>
/// A stored document's UTF-8 JSON, exactly as stored, in a pooled buffer: dispose it to return the
/// buffer (its <see cref="Json"/> must not be used afterwards). For an HTTP endpoint:
/// <c>await doc.WriteToAsync(response.Body, ct)</c>.
/// </summary>
public sealed class RawDocument : IDisposable
{
    private byte[]? _buffer;
    private readonly int _length;

    internal RawDocument(DocumentMetadata metadata, byte[] pooledBuffer, int length)
    {
        Metadata = metadata;
        _buffer = pooledBuffer;
        _length = length;
    }

    /// <summary>The document's id.</summary>
    public string Id => Metadata.Id;

    /// <summary>The document's collection, version and last-modified time.</summary>
    public DocumentMetadata Metadata { get; }

    /// <summary>The JSON (valid until <see cref="Dispose"/>).</summary>
    public ReadOnlyMemory<byte> Json => new(_buffer ?? throw new ObjectDisposedException(nameof(RawDocument)), 0, _length);

    /// <summary>Writes the JSON to <paramref name="destination"/>.</summary>
    public ValueTask WriteToAsync(Stream destination, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        return destination.WriteAsync(Json, cancellationToken);
    }

    /// <summary>Returns the buffer to the pool.</summary>
    public void Dispose()
    {
        var buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer != null)
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
