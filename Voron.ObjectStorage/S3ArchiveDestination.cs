using System.Net;
using System.Runtime.CompilerServices;
using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;

namespace Voron.ObjectStorage;

/// <summary>
/// An <see cref="IArchiveDestination"/> in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2,
/// s3rver...), through AWSSDK.S3, under an optional key prefix.
/// </summary>
/// <remarks>
/// <para><see cref="ForEndpoint"/> configures the client the way S3-compatible servers need:
/// path-style addressing (<c>ForcePathStyle</c>), and checksums only when an operation requires
/// them (<c>RequestChecksumCalculation</c> and <c>ResponseChecksumValidation</c> WHEN_REQUIRED):
/// many such servers reject the CRC trailers the SDK sends by default.</para>
/// <para>Put-if-absent (AD1, AD2): the key is looked up first (HEAD), then written with
/// <c>If-None-Match: *</c>, which AWS S3 (since 2024), MinIO and Ceph RGW enforce: a concurrent
/// writer of the same key gets 412 and this put returns false. A server that ignores the header
/// (s3rver) overwrites instead, so two writers racing on one key between the HEAD and the PUT may
/// both succeed there; the archive's keys are per store (AK2), so only two copies of one store
/// shipping at once can race. Set <c>conditionalWrites</c> false for a server that refuses the
/// header outright.</para>
/// <para>An object larger than one part (64 MiB) goes up as a multipart upload, part by part from
/// the content stream: nothing is visible until CompleteMultipartUpload, which is sent with
/// <c>If-None-Match: *</c> as the single put is, and a failure on the way aborts the upload (AD1).
/// The lookup first is the same.</para>
/// <para>Content that cannot seek is first copied to a temporary file (deleted when the put ends):
/// given a body it cannot replay, the SDK sends it in its chunk-signed streaming encoding, which
/// servers that do not decode it (s3rver) store framing and all, so the object would not hold the
/// caller's bytes. The shipper's own uploads seek and never take this path.</para>
/// <para>The writer's lease (<see cref="IArchiveLeaseStore"/>, LW1..LW5) is a small object written
/// with <c>If-None-Match: *</c> or <c>If-Match: &lt;ETag&gt;</c>. AWS S3 and recent MinIO enforce both;
/// a server that ignores them (s3rver), or a destination made with <c>conditionalWrites</c> false,
/// is found out by the shipper's check (LS6), which then ships without a lease.</para>
/// </remarks>
/// <example>
/// <code>
/// using var destination = S3ArchiveDestination.ForEndpoint(new Uri("http://127.0.0.1:9000"), "backups",
///     accessKey: "minio", secretKey: "minio-secret", prefix: "voron/orders");
/// options.ArchiveDestination = destination;
/// </code>
/// </example>
public sealed class S3ArchiveDestination : IArchiveDestination, IArchiveLeaseStore, IDisposable
{
    private readonly IAmazonS3 _client;
    private readonly bool _ownsClient;
    private readonly string _bucket;
    private readonly string _prefix;
    private readonly bool _conditionalWrites;

    /// <summary>A destination over <paramref name="client"/> (configured by the caller, not disposed here).</summary>
    /// <param name="client">The S3 client.</param>
    /// <param name="bucket">The bucket, which must exist.</param>
    /// <param name="prefix">A key prefix for every object ("" = the bucket's root); a trailing '/' is added.</param>
    /// <param name="conditionalWrites">Whether puts send <c>If-None-Match: *</c> (see the remarks).</param>
    public S3ArchiveDestination(IAmazonS3 client, string bucket, string prefix = "", bool conditionalWrites = true)
        : this(client, bucket, prefix, conditionalWrites, ownsClient: false)
    {
    }

    private S3ArchiveDestination(IAmazonS3 client, string bucket, string prefix, bool conditionalWrites, bool ownsClient)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentException.ThrowIfNullOrWhiteSpace(bucket);
        ArgumentNullException.ThrowIfNull(prefix);
        _client = client;
        _bucket = bucket;
        _prefix = prefix.Length == 0 || prefix.EndsWith('/') ? prefix : prefix + "/";
        _conditionalWrites = conditionalWrites;
        _ownsClient = ownsClient;
    }

    /// <summary>
    /// A destination at an S3-compatible endpoint with static credentials: path-style addressing and
    /// checksums only when required (see the remarks). The client is disposed with the destination.
    /// </summary>
    public static S3ArchiveDestination ForEndpoint(Uri serviceUrl, string bucket, string accessKey, string secretKey, string prefix = "",
        string region = "us-east-1", bool conditionalWrites = true)
    {
        ArgumentNullException.ThrowIfNull(serviceUrl);
        var config = new AmazonS3Config
        {
            ServiceURL = serviceUrl.ToString(),
            ForcePathStyle = true,
            AuthenticationRegion = region,
            RequestChecksumCalculation = RequestChecksumCalculation.WHEN_REQUIRED,
            ResponseChecksumValidation = ResponseChecksumValidation.WHEN_REQUIRED,
        };
        var client = new AmazonS3Client(new BasicAWSCredentials(accessKey, secretKey), config);
        return new S3ArchiveDestination(client, bucket, prefix, conditionalWrites, ownsClient: true);
    }

    /// <inheritdoc />
    public string Description => $"s3://{_bucket}/{_prefix}";

    /// <summary>Objects longer than this go up as multipart uploads of parts this long (the last one shorter); tests set it small.</summary>
    internal long PartSize { get; set; } = 64L << 20;

    /// <inheritdoc />
    public async Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(content);
        if (await ExistsAsync(key, cancellationToken).ConfigureAwait(false))
        {
            return false;
        }

        if (content.CanSeek)
        {
            return await PutSeekableAsync(key, content, length, cancellationToken).ConfigureAwait(false);
        }

        await using var spooled = await SpoolAsync(content, length, cancellationToken).ConfigureAwait(false);
        return await PutSeekableAsync(key, spooled, length, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The put after the lookup, from content that can seek (a part or a retry rewinds it).</summary>
    private async Task<bool> PutSeekableAsync(string key, Stream content, long length, CancellationToken cancellationToken)
    {
        if (length > PartSize)
        {
            return await PutMultipartAsync(key, content, length, cancellationToken).ConfigureAwait(false);
        }

        var request = new PutObjectRequest
        {
            BucketName = _bucket,
            Key = _prefix + key,
            InputStream = content,
            AutoCloseStream = false,
            AutoResetStreamPosition = false,
            UseChunkEncoding = false,
        };
        request.Headers.ContentLength = length;
        if (_conditionalWrites)
        {
            request.IfNoneMatch = "*";
        }

        try
        {
            await _client.PutObjectAsync(request, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (AmazonS3Exception e) when (e.StatusCode is HttpStatusCode.PreconditionFailed or HttpStatusCode.Conflict)
        {
            return false; // AD2: another writer stored it first (412), or is storing it now (409)
        }
    }

    /// <summary>A seekable copy of <paramref name="length"/> bytes of <paramref name="content"/> in a temporary file
    /// that is deleted when the returned stream is disposed (see the remarks on content that cannot seek).</summary>
    private static async Task<FileStream> SpoolAsync(Stream content, long length, CancellationToken cancellationToken)
    {
        var file = new FileStream(Path.Combine(Path.GetTempPath(), "voron-s3-" + Guid.NewGuid().ToString("N")), FileMode.CreateNew,
            FileAccess.ReadWrite, FileShare.None, 64 << 10, FileOptions.DeleteOnClose | FileOptions.Asynchronous);
        try
        {
            var buffer = new byte[64 << 10];
            for (long copied = 0; copied < length;)
            {
                var read = await content.ReadAsync(buffer.AsMemory(0, (int)Math.Min(buffer.Length, length - copied)), cancellationToken).ConfigureAwait(false);
                if (read == 0)
                {
                    throw new EndOfStreamException($"The content for the S3 object ended after {copied:N0} of the {length:N0} bytes the caller said it holds.");
                }

                await file.WriteAsync(buffer.AsMemory(0, read), cancellationToken).ConfigureAwait(false);
                copied += read;
            }

            file.Position = 0;
            return file;
        }
        catch
        {
            await file.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>AD1 for a large object: parts streamed one at a time from <paramref name="content"/>, then
    /// one conditional CompleteMultipartUpload; any failure aborts the upload, so nothing partial is ever visible.</summary>
    private async Task<bool> PutMultipartAsync(string key, Stream content, long length, CancellationToken cancellationToken)
    {
        var started = await _client.InitiateMultipartUploadAsync(new InitiateMultipartUploadRequest { BucketName = _bucket, Key = _prefix + key }, cancellationToken)
            .ConfigureAwait(false);
        var completed = false;
        try
        {
            var start = content.Position;
            var parts = new List<PartETag>();
            for (long offset = 0; offset < length; offset += PartSize)
            {
                var size = Math.Min(PartSize, length - offset);
                content.Position = start + offset; // a retried part rewinds the stream; the next one starts where it must

                var part = await _client.UploadPartAsync(new UploadPartRequest
                {
                    BucketName = _bucket,
                    Key = _prefix + key,
                    UploadId = started.UploadId,
                    PartNumber = parts.Count + 1,
                    InputStream = new PartStream(content, size),
                    PartSize = size,
                    IsLastPart = offset + size == length,
                    UseChunkEncoding = false,
                }, cancellationToken).ConfigureAwait(false);
                parts.Add(new PartETag(parts.Count + 1, part.ETag));
            }

            var complete = new CompleteMultipartUploadRequest { BucketName = _bucket, Key = _prefix + key, UploadId = started.UploadId, PartETags = parts };
            if (_conditionalWrites)
            {
                complete.IfNoneMatch = "*";
            }

            try
            {
                await _client.CompleteMultipartUploadAsync(complete, cancellationToken).ConfigureAwait(false);
                completed = true;
                return true;
            }
            catch (AmazonS3Exception e) when (e.StatusCode is HttpStatusCode.PreconditionFailed or HttpStatusCode.Conflict)
            {
                return false; // AD2: another writer completed the key first
            }
        }
        finally
        {
            if (!completed)
            {
                try
                {
                    // AD1: the parts are never visible; abort so the server does not keep (and bill) them.
                    using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
                    await _client.AbortMultipartUploadAsync(new AbortMultipartUploadRequest { BucketName = _bucket, Key = _prefix + key, UploadId = started.UploadId },
                        timeout.Token).ConfigureAwait(false);
                }
                catch (Exception e) when (e is AmazonServiceException or HttpRequestException or OperationCanceledException or IOException)
                {
                    // Unreachable now: a bucket lifecycle rule for incomplete multipart uploads cleans up after it.
                }
            }
        }
    }

    /// <inheritdoc />
    public async Task<ArchiveVersionedObject?> GetVersionedAsync(string key, CancellationToken cancellationToken = default)
    {
        try
        {
            using var response = await _client.GetObjectAsync(new GetObjectRequest { BucketName = _bucket, Key = _prefix + key }, cancellationToken).ConfigureAwait(false);
            var copy = new MemoryStream();
            await response.ResponseStream.CopyToAsync(copy, cancellationToken).ConfigureAwait(false);
            return new ArchiveVersionedObject(copy.ToArray(), response.ETag);
        }
        catch (AmazonS3Exception e) when (e.StatusCode == HttpStatusCode.NotFound)
        {
            return null; // LW3
        }
    }

    /// <inheritdoc />
    public async Task<string?> PutIfVersionAsync(string key, ReadOnlyMemory<byte> content, string? ifVersion, CancellationToken cancellationToken = default)
    {
        var request = new PutObjectRequest
        {
            BucketName = _bucket,
            Key = _prefix + key,
            InputStream = new MemoryStream(content.ToArray(), writable: false),
            UseChunkEncoding = false,
        };
        if (_conditionalWrites)
        {
            if (ifVersion == null)
            {
                request.IfNoneMatch = "*";
            }
            else
            {
                request.IfMatch = ifVersion;
            }
        }

        try
        {
            var response = await _client.PutObjectAsync(request, cancellationToken).ConfigureAwait(false);
            return response.ETag;
        }
        catch (AmazonS3Exception e) when (e.StatusCode is HttpStatusCode.PreconditionFailed or HttpStatusCode.Conflict ||
            e.StatusCode == HttpStatusCode.NotFound && ifVersion != null)
        {
            return null; // LW1: the condition did not hold (If-Match on a missing object is 404 on AWS)
        }
    }

    /// <inheritdoc />
    public async Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        if (length == 0)
        {
            return await ExistsAsync(key, cancellationToken).ConfigureAwait(false) ? new MemoryStream([], writable: false) : null;
        }

        var request = new GetObjectRequest { BucketName = _bucket, Key = _prefix + key };
        if (offset > 0 || length != null)
        {
            request.ByteRange = length is { } count ? new ByteRange(offset, offset + count - 1) : new ByteRange($"bytes={offset}-");
        }

        try
        {
            var response = await _client.GetObjectAsync(request, cancellationToken).ConfigureAwait(false);
            return new ResponseStream(response);
        }
        catch (AmazonS3Exception e) when (e.StatusCode == HttpStatusCode.NotFound)
        {
            return null; // AD3
        }
        catch (AmazonS3Exception e) when (e.StatusCode == HttpStatusCode.RequestedRangeNotSatisfiable)
        {
            return await ExistsAsync(key, cancellationToken).ConfigureAwait(false) ? new MemoryStream([], writable: false) : null; // past the end
        }
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null,
        [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(prefix);
        var request = new ListObjectsV2Request { BucketName = _bucket, Prefix = _prefix + prefix };
        if (startAfter != null)
        {
            request.StartAfter = _prefix + startAfter;
        }

        do
        {
            var response = await _client.ListObjectsV2Async(request, cancellationToken).ConfigureAwait(false);
            foreach (var item in response.S3Objects ?? [])
            {
                var key = item.Key[_prefix.Length..];
                if (startAfter == null || string.CompareOrdinal(key, startAfter) > 0) // a server that ignores StartAfter
                {
                    yield return new ArchiveObjectInfo(key, item.Size ?? 0);
                }
            }

            request.ContinuationToken = response.IsTruncated == true ? response.NextContinuationToken : null;
        }
        while (request.ContinuationToken != null);
    }

    /// <inheritdoc />
    public Task DeleteAsync(string key, CancellationToken cancellationToken = default) =>
        _client.DeleteObjectAsync(new DeleteObjectRequest { BucketName = _bucket, Key = _prefix + key }, cancellationToken); // AD5: S3 deletes a missing key without error

    private async Task<bool> ExistsAsync(string key, CancellationToken cancellationToken)
    {
        try
        {
            await _client.GetObjectMetadataAsync(new GetObjectMetadataRequest { BucketName = _bucket, Key = _prefix + key }, cancellationToken).ConfigureAwait(false);
            return true;
        }
        catch (AmazonS3Exception e) when (e.StatusCode == HttpStatusCode.NotFound)
        {
            return false;
        }
    }

    /// <summary>Disposes the client when <see cref="ForEndpoint"/> made it.</summary>
    public void Dispose()
    {
        if (_ownsClient)
        {
            _client.Dispose();
        }
    }

    /// <summary>The next <c>length</c> bytes of the content, one part: rewinding (the SDK hashes a part, then
    /// sends it, and retries) returns to the part's start. The content must hold every byte (AD1).</summary>
    private sealed class PartStream : Stream
    {
        private readonly Stream _inner;
        private readonly long _start;
        private readonly long _length;
        private long _position;

        public PartStream(Stream inner, long length)
        {
            _inner = inner;
            _start = inner.CanSeek ? inner.Position : 0;
            _length = length;
        }

        public override bool CanRead => true;

        public override bool CanSeek => _inner.CanSeek;

        public override bool CanWrite => false;

        public override long Length => _length;

        public override long Position
        {
            get => _position;
            set
            {
                if (value != _position)
                {
                    _inner.Position = _start + value; // throws on a stream that cannot seek: the part fails and is not retried
                    _position = value;
                }
            }
        }

        public override int Read(byte[] buffer, int offset, int count) => Count(_inner.Read(buffer, offset, Want(count)), count);

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
            Count(await _inner.ReadAsync(buffer[..Want(buffer.Length)], cancellationToken).ConfigureAwait(false), buffer.Length);

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        private int Want(int count) => (int)Math.Min(count, _length - _position);

        private int Count(int read, int asked)
        {
            if (read == 0 && asked > 0 && _position < _length)
            {
                throw new IOException($"The content ended {_length - _position:N0} bytes before the end of a part; the upload is aborted.");
            }

            _position += read;
            return read;
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => Position = origin switch
        {
            SeekOrigin.Begin => offset,
            SeekOrigin.Current => _position + offset,
            _ => _length + offset,
        };

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }

    /// <summary>The object's body; disposing it releases the HTTP response.</summary>
    private sealed class ResponseStream(GetObjectResponse response) : Stream
    {
        private readonly Stream _body = response.ResponseStream;

        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => response.ContentLength;

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override int Read(byte[] buffer, int offset, int count) => _body.Read(buffer, offset, count);

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) => _body.ReadAsync(buffer, cancellationToken);

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            _body.ReadAsync(buffer, offset, count, cancellationToken);

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                response.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
