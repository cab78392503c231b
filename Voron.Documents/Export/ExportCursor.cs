using System.Buffers;
using System.Buffers.Text;
using System.Text;
using Voron.Documents.Storage;

namespace Voron.Documents.Export;

/// <summary>
/// Walks one snapshot's documents, collection by collection in name order and by id within one,
/// and writes them as JSON Lines into a buffer, whole lines only (see
/// <see cref="DocumentStore.ExportAsync"/>). Synchronous, so the record spans of the read
/// transaction never cross an await: the caller writes each filled buffer to the stream and calls
/// <see cref="Fill"/> again, which resumes at the document that did not fit.
/// </summary>
internal sealed class ExportCursor : IDisposable
{
    // Room for everything of a line but the JSON, the id and the collection: ,"@metadata":{"@id":,
    // "@collection":,"@version":<20 digits>,"@last-modified":"<28 chars>"}}\n
    private const int LineOverhead = 160;

    private readonly ReadTransaction _read;
    private readonly Tree? _docs;
    private readonly string _storePath;
    private readonly List<string> _collections = [];
    private readonly IProgress<long>? _progress;
    private readonly long _nowTicks;
    private int _collection = -1;
    private byte[] _collectionBytes = [];
    private byte[] _collectionJson = [];
    private TreeIterator? _members;
    private bool _positioned;
    private byte[]? _decoded;
    private byte[]? _minified;
    private byte[]? _stripped;

    /// <summary>A cursor over <paramref name="read"/>'s documents (of <paramref name="onlyCollection"/>, or all) of the store at <paramref name="storePath"/>, reporting to <paramref name="progress"/>.</summary>
    /// <param name="read">The snapshot.</param>
    /// <param name="storePath">For errors.</param>
    /// <param name="onlyCollection">One collection, or null for all.</param>
    /// <param name="progress">Told the documents written every 10,000.</param>
    /// <param name="nowTicks">The export's "now" (UTC ticks): documents expired at it are left out (XE1).</param>
    public ExportCursor(ReadTransaction read, string storePath, string? onlyCollection, IProgress<long>? progress, long nowTicks = 0)
    {
        _nowTicks = nowTicks;
        _read = read;
        _storePath = storePath;
        _progress = progress;
        _docs = read.OpenTree(DocumentTrees.Documents);
        foreach (var name in read.GetTreeNames()) // UTF-8 byte order: collections in name order (XP1)
        {
            if (name.StartsWith(DocumentTrees.CollectionPrefix, StringComparison.Ordinal))
            {
                var collection = name[DocumentTrees.CollectionPrefix.Length..];
                if (onlyCollection == null || string.Equals(onlyCollection, collection, StringComparison.Ordinal))
                {
                    _collections.Add(collection);
                }
            }
        }
    }

    /// <summary>Documents written so far.</summary>
    public long Documents { get; private set; }

    /// <summary>Whether every document was written.</summary>
    public bool Done { get; private set; }

    /// <summary>
    /// Writes whole lines into <paramref name="buffer"/> from its start until the next line does
    /// not fit or none is left (<see cref="Done"/>); a line longer than the buffer gets a larger
    /// pooled one (the old one is returned to the pool). Returns the bytes written.
    /// </summary>
    public int Fill(ref byte[] buffer, CancellationToken cancellationToken)
    {
        var position = 0;
        while (true)
        {
            if (!_positioned && !Advance())
            {
                Done = true;
                return position;
            }

            cancellationToken.ThrowIfCancellationRequested(); // between documents
            var id = _members!.Key;
            if (_docs == null || !_docs.TryGet(id, out var record))
            {
                throw new CorruptionException(_storePath, 0, $"document '{Encoding.UTF8.GetString(id)}' is listed in collection '{_collections[_collection]}' but has no record in '{DocumentTrees.Documents}' (L1).");
            }

            RecordHeader header;
            try
            {
                header = DocumentRecord.ReadHeader(record, "", _storePath);
            }
            catch (CorruptionException)
            {
                _ = DocumentRecord.ReadHeader(record, Encoding.UTF8.GetString(id), _storePath); // the id's text only for the error
                throw;
            }

            if (!DocumentRecord.Collection(record, header).SequenceEqual(_collectionBytes))
            {
                throw new CorruptionException(_storePath, DocumentRecord.HeaderSize, $"document '{Encoding.UTF8.GetString(id)}' is listed in collection '{_collections[_collection]}' but its record names another (L1).");
            }

            if (header.IsExpired(_nowTicks))
            {
                _positioned = false; // XE1: absent for readers
                continue;
            }

            var needed = header.JsonLength + JsonLineText.MaxStringLength(id.Length) + _collectionJson.Length + LineOverhead;
            if (position + needed > buffer.Length)
            {
                if (position > 0)
                {
                    return position; // flush first; this document is written by the next call
                }

                ArrayPool<byte>.Shared.Return(buffer);
                buffer = ArrayPool<byte>.Shared.Rent(needed);
            }

            scoped ReadOnlySpan<byte> json;
            try
            {
                json = DocumentRecord.Json(record, header, ref _decoded, "", _storePath);
            }
            catch (CorruptionException)
            {
                _ = DocumentRecord.Json(record, header, ref _decoded, Encoding.UTF8.GetString(id), _storePath);
                throw;
            }

            position += WriteLine(buffer.AsSpan(position), Normalize(json, id), id, header);
            Documents++;
            _positioned = false;
            if (Documents % 10_000 == 0)
            {
                _progress?.Report(Documents);
            }
        }
    }

    private bool Advance()
    {
        if (_members != null && _members.MoveNext())
        {
            _positioned = true;
            return true;
        }

        while (++_collection < _collections.Count)
        {
            var name = _collections[_collection];
            _members = _read.OpenTree(DocumentTrees.CollectionTree(name))?.Iterate();
            if (_members != null && _members.SeekFirst())
            {
                _collectionBytes = Encoding.UTF8.GetBytes(name);
                _collectionJson = new byte[JsonLineText.MaxStringLength(_collectionBytes.Length)];
                _collectionJson = _collectionJson.AsSpan(0, JsonLineText.WriteString(_collectionBytes, _collectionJson)).ToArray();
                _positioned = true;
                return true;
            }
        }

        _members = null;
        return false;
    }

    /// <summary>
    /// The body as one line without a top-level <c>@metadata</c> (XP2): most bodies are that
    /// already (serializer output is minified) and are used as they are; raw JSON stored with line
    /// breaks is minified, and a body's own <c>@metadata</c> is dropped, as the export writes its own.
    /// </summary>
    private ReadOnlySpan<byte> Normalize(ReadOnlySpan<byte> json, ReadOnlySpan<byte> id)
    {
        if (JsonLineText.NeedsMinify(json))
        {
            var minified = Scratch(ref _minified, json.Length);
            json = minified[..JsonLineText.Minify(json, minified)];
            if (json.Length < 2 || json[0] != (byte)'{')
            {
                throw new InvalidOperationException($"Document '{Encoding.UTF8.GetString(id)}' does not hold a JSON object (stored by a custom converter?), so it cannot be exported as a line with \"@metadata\"; store it again as an object.");
            }
        }

        if (JsonLineText.MayHaveMetadata(json))
        {
            var stripped = Scratch(ref _stripped, json.Length);
            var length = JsonLineText.WithoutMetadata(json, stripped, readStrings: false, out var metadata);
            if (metadata.Count > 0)
            {
                json = stripped[..length];
            }
        }

        return json;
    }

    private int WriteLine(Span<byte> destination, ReadOnlySpan<byte> json, ReadOnlySpan<byte> id, in RecordHeader header)
    {
        json[..^1].CopyTo(destination);
        var w = json.Length - 1;
        if (JsonLineText.HasProperties(json))
        {
            destination[w++] = (byte)',';
        }

        w += Append(destination[w..], "\"@metadata\":{\"@id\":"u8);
        w += JsonLineText.WriteString(id, destination[w..]);
        w += Append(destination[w..], ",\"@collection\":"u8);
        w += Append(destination[w..], _collectionJson);
        w += Append(destination[w..], ",\"@version\":"u8);
        Utf8Formatter.TryFormat(header.Version, destination[w..], out var written);
        w += written;
        w += Append(destination[w..], ",\"@last-modified\":\""u8);
        Utf8Formatter.TryFormat(new DateTime(header.Ticks, DateTimeKind.Utc), destination[w..], out written, new StandardFormat('O'));
        w += written;
        w += Append(destination[w..], "\"}}\n"u8);
        return w;
    }

    private static int Append(Span<byte> destination, ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(destination);
        return bytes.Length;
    }

    private static Span<byte> Scratch(ref byte[]? buffer, int length)
    {
        if (buffer == null || buffer.Length < length)
        {
            if (buffer != null)
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }

            buffer = ArrayPool<byte>.Shared.Rent(length);
        }

        return buffer.AsSpan(0, length);
    }

    public void Dispose()
    {
        foreach (var buffer in (byte[]?[])[_decoded, _minified, _stripped])
        {
            if (buffer != null)
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        _decoded = _minified = _stripped = null;
    }
}
