using System.Net;
using System.Runtime.CompilerServices;
using Azure;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;

namespace Voron.ObjectStorage;

/// <summary>
/// An <see cref="IArchiveDestination"/> in an Azure Blob Storage container (or Azurite), through
/// Azure.Storage.Blobs, under an optional name prefix.
/// </summary>
/// <remarks>
/// Put-if-absent (AD1, AD2) is one conditional upload (<c>If-None-Match: *</c>), which Azure Blob
/// Storage and Azurite enforce: an existing blob is never replaced, and a concurrent writer of the
/// same name gets 409 (BlobAlreadyExists) or 412. Blobs list in name order (AD4); the listing
/// starts at the prefix and skips names up to <c>startAfter</c> on the client (the Blob API has
/// no start-after parameter).
/// <para>The writer's lease (<see cref="IArchiveLeaseStore"/>, LW1..LW5) is a small blob written with
/// <c>If-None-Match: *</c> or <c>If-Match: &lt;ETag&gt;</c>, both enforced by Azure Blob Storage and
/// Azurite: of two writers racing with one ETag, one wins and the other gets 412.</para>
/// </remarks>
/// <example>
/// <code>
/// var container = new BlobContainerClient(connectionString, "backups");
/// await container.CreateIfNotExistsAsync();
/// options.ArchiveDestination = new AzureBlobArchiveDestination(container, prefix: "voron/orders");
/// </code>
/// </example>
public sealed class AzureBlobArchiveDestination : IArchiveDestination, IArchiveLeaseStore
{
    private readonly BlobContainerClient _container;
    private readonly string _prefix;

    /// <summary>A destination in <paramref name="container"/> (which must exist), under <paramref name="prefix"/> ("" = its root; a trailing '/' is added).</summary>
    public AzureBlobArchiveDestination(BlobContainerClient container, string prefix = "")
    {
        ArgumentNullException.ThrowIfNull(container);
        ArgumentNullException.ThrowIfNull(prefix);
        _container = container;
        _prefix = prefix.Length == 0 || prefix.EndsWith('/') ? prefix : prefix + "/";
    }

    /// <inheritdoc />
    public string Description => $"{_container.Uri.ToString().TrimEnd('/')}/{_prefix}";

    /// <inheritdoc />
    public async Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(content);
        var options = new BlobUploadOptions { Conditions = new BlobRequestConditions { IfNoneMatch = ETag.All } };
        try
        {
            await _container.GetBlobClient(_prefix + key).UploadAsync(new Exactly(content, length), options, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (RequestFailedException e) when (e.Status is (int)HttpStatusCode.Conflict or (int)HttpStatusCode.PreconditionFailed)
        {
            return false; // AD2
        }
    }

    /// <inheritdoc />
    public async Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        var blob = _container.GetBlobClient(_prefix + key);
        try
        {
            if (length == 0)
            {
                await blob.GetPropertiesAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
                return new MemoryStream([], writable: false);
            }

            var response = await blob.DownloadStreamingAsync(new BlobDownloadOptions { Range = new HttpRange(offset, length) }, cancellationToken).ConfigureAwait(false);
            return response.Value.Content;
        }
        catch (RequestFailedException e) when (e.Status == (int)HttpStatusCode.NotFound)
        {
            return null; // AD3
        }
        catch (RequestFailedException e) when (e.Status == (int)HttpStatusCode.RequestedRangeNotSatisfiable)
        {
            return new MemoryStream([], writable: false); // past the end of an existing blob
        }
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null,
        [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        await foreach (var item in _container.GetBlobsAsync(BlobTraits.None, BlobStates.None, _prefix + prefix, cancellationToken).ConfigureAwait(false))
        {
            var key = item.Name[_prefix.Length..];
            if (startAfter == null || string.CompareOrdinal(key, startAfter) > 0)
            {
                yield return new ArchiveObjectInfo(key, item.Properties.ContentLength ?? 0);
            }
        }
    }

    /// <inheritdoc />
    public Task DeleteAsync(string key, CancellationToken cancellationToken = default) =>
        _container.GetBlobClient(_prefix + key).DeleteIfExistsAsync(cancellationToken: cancellationToken); // AD5

    /// <inheritdoc />
    public async Task<ArchiveVersionedObject?> GetVersionedAsync(string key, CancellationToken cancellationToken = default)
    {
        try
        {
            var response = await _container.GetBlobClient(_prefix + key).DownloadContentAsync(cancellationToken).ConfigureAwait(false);
            return new ArchiveVersionedObject(response.Value.Content.ToArray(), response.Value.Details.ETag.ToString("H"));
        }
        catch (RequestFailedException e) when (e.Status == (int)HttpStatusCode.NotFound)
        {
            return null; // LW3
        }
    }

    /// <inheritdoc />
    public async Task<string?> PutIfVersionAsync(string key, ReadOnlyMemory<byte> content, string? ifVersion, CancellationToken cancellationToken = default)
    {
        var conditions = ifVersion == null ? new BlobRequestConditions { IfNoneMatch = ETag.All } : new BlobRequestConditions { IfMatch = new ETag(ifVersion) };
        try
        {
            var response = await _container.GetBlobClient(_prefix + key).UploadAsync(BinaryData.FromBytes(content), new BlobUploadOptions { Conditions = conditions },
                cancellationToken).ConfigureAwait(false);
            return response.Value.ETag.ToString("H");
        }
        catch (RequestFailedException e) when (e.Status is (int)HttpStatusCode.Conflict or (int)HttpStatusCode.PreconditionFailed ||
            e.Status == (int)HttpStatusCode.NotFound && ifVersion != null)
        {
            return null; // LW1: the condition did not hold
        }
    }

    /// <summary>The first <c>length</c> bytes of a stream, which must hold them all (AD1: a short stream fails the upload).</summary>
    private sealed class Exactly(Stream inner, long length) : Stream
    {
        private readonly long _length = length;
        private long _read;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => _length;

        public override long Position
        {
            get => _read;
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            var read = inner.Read(buffer[..(int)Math.Min(buffer.Length, _length - _read)]);
            return Count(read, buffer.Length);
        }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            var read = await inner.ReadAsync(buffer[..(int)Math.Min(buffer.Length, _length - _read)], cancellationToken).ConfigureAwait(false);
            return Count(read, buffer.Length);
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        private int Count(int read, int asked)
        {
            if (read == 0 && asked > 0 && _read < _length)
            {
                throw new IOException($"The content ended after {_read:N0} of its {_length:N0} bytes; nothing was stored.");
            }

            _read += read;
            return read;
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
