using System.Buffers;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents.Sessions;

internal sealed partial class DocumentSession
{
    public Task<T?> LoadAsync<T>(string id, JsonTypeInfo<T> typeInfo, CancellationToken cancellationToken = default) where T : class
    {
        ArgumentNullException.ThrowIfNull(typeInfo);
        cancellationToken.ThrowIfCancellationRequested();
        using var scope = Enter();
        var type = DocumentType.For(typeInfo);
        var operation = store.Telemetry.Start(DocumentsDiagnostics.Operations.Load, type.Collection);
        try
        {
            var idBytes = DocumentNames.IdBytes(id);
            if (TryFromMap(id, out T? known))
            {
                operation.Complete(known == null ? 0 : 1);
                return Task.FromResult(known);
            }

            using var read = store.Environment.BeginRead();
            var loaded = LoadTracked(read, id, idBytes, type, typeInfo, store.NowTicks);
            operation.Complete(loaded == null ? 0 : 1);
            return Task.FromResult(loaded);
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    public Task<IReadOnlyDictionary<string, T?>> LoadAsync<T>(IEnumerable<string> ids, JsonTypeInfo<T> typeInfo, CancellationToken cancellationToken = default) where T : class
    {
        ArgumentNullException.ThrowIfNull(ids);
        ArgumentNullException.ThrowIfNull(typeInfo);
        cancellationToken.ThrowIfCancellationRequested();
        using var scope = Enter();
        var type = DocumentType.For(typeInfo);
        var operation = store.Telemetry.Start(DocumentsDiagnostics.Operations.Load, type.Collection);
        try
        {
            var results = new Dictionary<string, T?>(StringComparer.Ordinal);
            var now = store.NowTicks; // XE1: one "now" for the snapshot
            ReadTransaction? read = null;
            try
            {
                foreach (var id in ids)
                {
                    if (results.ContainsKey(id))
                    {
                        continue;
                    }

                    var idBytes = DocumentNames.IdBytes(id);
                    if (TryFromMap(id, out T? known))
                    {
                        results[id] = known;
                        continue;
                    }

                    read ??= store.Environment.BeginRead(); // I6: one snapshot for every id
                    results[id] = LoadTracked(read, id, idBytes, type, typeInfo, now);
                }
            }
            finally
            {
                read?.Dispose();
            }

            operation.Complete(results.Values.Count(v => v != null));
            return Task.FromResult<IReadOnlyDictionary<string, T?>>(results);
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    /// <summary>What the identity map says about <paramref name="id"/>: true with the tracked object (or null when deleted) if it knows the id.</summary>
    private bool TryFromMap<T>(string id, out T? entity) where T : class
    {
        entity = null;
        if (!_byId.TryGetValue(id, out var entry))
        {
            return false;
        }

        if (entry.State == EntryState.Delete)
        {
            return true;
        }

        if (entry.Entity is T typed)
        {
            entity = typed;
            return true;
        }

        if (entry.Entity != null)
        {
            throw new InvalidOperationException($"The session tracks document '{id}' as a {entry.Entity.GetType().Name}, not a {typeof(T).Name}.");
        }

        throw new InvalidOperationException($"Document '{id}' has a pending raw store in this session; save it before loading it as a {typeof(T).Name}.");
    }

    /// <summary>Reads, deserializes and starts tracking a stored document, or returns null when there is none.</summary>
    private T? LoadTracked<T>(ReadTransaction read, string id, byte[] idBytes, DocumentType type, JsonTypeInfo<T> typeInfo, long nowTicks) where T : class
    {
        var docs = read.OpenTree(DocumentTrees.Documents);
        if (docs == null || !docs.TryGet(idBytes, out var record))
        {
            return null;
        }

        var header = DocumentRecord.ReadHeader(record, id, store.Path);
        if (header.IsExpired(nowTicks))
        {
            return null; // XE1
        }

        var collection = DocumentRecord.Collection(record, header);
        if (!collection.SequenceEqual(type.CollectionBytes))
        {
            throw new InvalidOperationException($"Document '{id}' belongs to collection '{DocumentRecord.CollectionName(record, header)}', not to '{type.Collection}' ({typeof(T).Name}); load it with the type of its collection.");
        }

        byte[]? rented = null;
        try
        {
            var json = DocumentRecord.Json(record, header, ref rented, id, store.Path);
            var entity = Deserialize(json, typeInfo, id, type.Collection);
            Track(Loaded(id, idBytes, type, entity, json, header.Version, header.Ticks, header.ExpiresTicks));
            return entity;
        }
        finally
        {
            if (rented != null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }

    /// <summary>
    /// The entry of a document just read as <paramref name="entity"/>: its id member set from the
    /// document's id (S3); its snapshot (S1) is taken at save, from <see cref="SessionEntry.OriginalJson"/>.
    /// </summary>
    private static SessionEntry Loaded(string id, byte[] idBytes, DocumentType type, object entity, ReadOnlySpan<byte> json, long version, long ticks, long expiresTicks)
    {
        type.SetId(entity, id);
        return new SessionEntry(id, idBytes)
        {
            State = EntryState.Tracked,
            Collection = type.Collection,
            CollectionBytes = type.CollectionBytes,
            Entity = entity,
            Type = type,
            OriginalJson = json.ToArray(),
            Version = version,
            Ticks = ticks,
            ExpiresTicks = expiresTicks,
        };
    }

    internal static T Deserialize<T>(ReadOnlySpan<byte> json, JsonTypeInfo<T> typeInfo, string id, string collection)
    {
        try
        {
            return JsonSerializer.Deserialize(json, typeInfo) ?? throw new JsonException("The document's JSON is null.");
        }
        catch (JsonException e)
        {
            throw new JsonException($"Document '{id}' in collection '{collection}' does not fit {typeof(T).Name}: {e.Message}", e.Path, e.LineNumber, e.BytePositionInLine, e);
        }
    }

    public Task<DocumentMetadata?> LoadRawAsync(string id, IBufferWriter<byte> destination, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        cancellationToken.ThrowIfCancellationRequested();
        var metadata = ReadRaw(id, (json, _) =>
        {
            json.CopyTo(destination.GetSpan(json.Length));
            destination.Advance(json.Length);
            return 0;
        }, out _);
        return Task.FromResult(metadata);
    }

    public async Task<DocumentMetadata?> LoadRawAsync(string id, Stream destination, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        cancellationToken.ThrowIfCancellationRequested();
        var metadata = ReadRaw(id, static (json, _) => Rent(json), out var buffer);
        if (metadata == null)
        {
            return null;
        }

        try
        {
            // The read transaction ended with the copy: the write to the client holds no snapshot.
            await destination.WriteAsync(buffer.Array.AsMemory(0, buffer.Length), cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer.Array);
        }

        return metadata;
    }

    public Task<RawDocument?> LoadRawAsync(string id, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var metadata = ReadRaw(id, static (json, _) => Rent(json), out var buffer);
        return Task.FromResult(metadata == null ? null : new RawDocument(metadata, buffer.Array, buffer.Length));
    }

    private static (byte[] Array, int Length) Rent(ReadOnlySpan<byte> json)
    {
        var array = ArrayPool<byte>.Shared.Rent(Math.Max(json.Length, 1));
        json.CopyTo(array);
        return (array, json.Length);
    }

    private delegate TResult JsonConsumer<TResult>(ReadOnlySpan<byte> json, DocumentMetadata metadata);

    /// <summary>Hands a document's JSON — the session's pending version, else the stored one — to <paramref name="consume"/> while it is valid.</summary>
    private DocumentMetadata? ReadRaw<TResult>(string id, JsonConsumer<TResult> consume, out TResult result)
    {
        using var scope = Enter();
        var operation = store.Telemetry.Start(DocumentsDiagnostics.Operations.Load, null);
        try
        {
            var metadata = ReadRawCore(id, consume, out result);
            operation.Complete(metadata == null ? 0 : 1);
            return metadata;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    private DocumentMetadata? ReadRawCore<TResult>(string id, JsonConsumer<TResult> consume, out TResult result)
    {
        result = default!;
        var idBytes = DocumentNames.IdBytes(id);
        if (_byId.TryGetValue(id, out var entry))
        {
            if (entry.State == EntryState.Delete)
            {
                return null;
            }

            var json = entry.RawJson ?? PendingJson(entry).Json;
            var pending = Metadata(entry);
            result = consume(json, pending);
            return pending;
        }

        using var read = store.Environment.BeginRead();
        var docs = read.OpenTree(DocumentTrees.Documents);
        if (docs == null || !docs.TryGet(idBytes, out var record))
        {
            return null;
        }

        var header = DocumentRecord.ReadHeader(record, id, store.Path);
        if (header.IsExpired(store.NowTicks))
        {
            return null; // XE1
        }

        var metadata = new DocumentMetadata(id, DocumentRecord.CollectionName(record, header), header.Version, header.LastModified) { Expires = header.Expires };
        byte[]? rented = null;
        try
        {
            result = consume(DocumentRecord.Json(record, header, ref rented, id, store.Path), metadata);
            return metadata;
        }
        finally
        {
            if (rented != null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }
}
