using System.Buffers;
using System.Text.Json.Serialization.Metadata;

namespace Voron.Tests.AspNetCore;

/// <summary>
/// A session whose save waits until <paramref name="parties"/> sessions reached their save, so
/// concurrent requests load the same version before any of them writes: a deterministic race.
/// </summary>
internal sealed class BarrierSession(IAsyncDocumentSession inner, BarrierSession.Gate gate) : IAsyncDocumentSession
{
    public DocumentStore DocumentStore => inner.DocumentStore;

    public long LastTransactionId => inner.LastTransactionId;

    public async Task SaveChangesAsync(CancellationToken cancellationToken = default)
    {
        await gate.ArriveAsync().WaitAsync(TimeSpan.FromSeconds(30), cancellationToken);
        await inner.SaveChangesAsync(cancellationToken);
    }

    public void Store<T>(T entity, JsonTypeInfo<T> typeInfo, string? id = null, long? expectedVersion = null) where T : class => inner.Store(entity, typeInfo, id, expectedVersion);

    public void StoreRaw(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion = null) => inner.StoreRaw(collection, id, utf8Json, expectedVersion);

    public void StoreRaw(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion, DateTimeOffset? expiresAt) => inner.StoreRaw(collection, id, utf8Json, expectedVersion, expiresAt);

    public void SetExpiration<T>(T entity, DateTimeOffset? expiresAt) where T : class => inner.SetExpiration(entity, expiresAt);

    public void Delete(string id) => inner.Delete(id);

    public void Delete(string id, long expectedVersion) => inner.Delete(id, expectedVersion);

    public void Delete<T>(T entity) where T : class => inner.Delete(entity);

    public Task<T?> LoadAsync<T>(string id, JsonTypeInfo<T> typeInfo, CancellationToken cancellationToken = default) where T : class => inner.LoadAsync(id, typeInfo, cancellationToken);

    public Task<IReadOnlyDictionary<string, T?>> LoadAsync<T>(IEnumerable<string> ids, JsonTypeInfo<T> typeInfo, CancellationToken cancellationToken = default) where T : class =>
        inner.LoadAsync(ids, typeInfo, cancellationToken);

    public Task<DocumentMetadata?> LoadRawAsync(string id, IBufferWriter<byte> destination, CancellationToken cancellationToken = default) => inner.LoadRawAsync(id, destination, cancellationToken);

    public Task<DocumentMetadata?> LoadRawAsync(string id, Stream destination, CancellationToken cancellationToken = default) => inner.LoadRawAsync(id, destination, cancellationToken);

    public Task<RawDocument?> LoadRawAsync(string id, CancellationToken cancellationToken = default) => inner.LoadRawAsync(id, cancellationToken);

    public IDocumentQuery<T> Query<T>(JsonTypeInfo<T> typeInfo) where T : class => inner.Query(typeInfo);

    public IRawDocumentQuery QueryRaw(string collection) => inner.QueryRaw(collection);

    public DocumentMetadata? GetMetadata<T>(T entity) where T : class => inner.GetMetadata(entity);

    public void Clear() => inner.Clear();

    public ValueTask DisposeAsync() => inner.DisposeAsync();

    public void Dispose() => inner.Dispose();

    /// <summary>Opens when <c>parties</c> sessions arrived.</summary>
    internal sealed class Gate(int parties)
    {
        private readonly TaskCompletionSource _open = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _arrived;

        public Task ArriveAsync()
        {
            if (Interlocked.Increment(ref _arrived) >= parties)
            {
                _open.TrySetResult();
            }

            return _open.Task;
        }
    }
}
