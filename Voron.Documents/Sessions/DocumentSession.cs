using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents.Sessions;

// Identity and change tracking — the rules a session keeps for typed documents:
//   S1. A loaded (or saved) entity is written only when its serialization differs from its
//       serialization when it was loaded (or last saved) — its snapshot — never because the
//       stored JSON has another shape (property order, number format, unknown properties,
//       defaults). A session that only reads writes nothing. The snapshot of a loaded entity is
//       taken at save, not at load, so loads and queries pay nothing for it: when the entity's
//       serialization equals the stored bytes it is unchanged; otherwise the stored JSON is read
//       into the type again (id set, S3) and serialized. That equals the serialization at load
//       for every type whose deserialization is deterministic; one that is not (an initializer
//       such as DateTime.UtcNow for a member the JSON lacks) reads as changed and is written.
//   S2. When a loaded entity changed, the document written is its serialization followed by the
//       stored document's top-level properties its type does not declare (UnknownProperties.cs),
//       unless the type has a [JsonExtensionData] member, which keeps them itself. Store() of an
//       object the session did not load replaces the whole document; so does StoreRaw.
//   S3. The document's id is the key: a load or query sets the entity's id member (a settable
//       string "Id") to it, whatever the JSON says; Store(entity, id) writes the id given into the
//       member; the body written carries that same id. A save refuses an entity whose id member
//       was changed since (a document's id cannot change).

/// <summary>
/// The session (IAsyncDocumentSession): an identity map keyed by id (and by entity reference),
/// pending changes, and the save that turns them into one merged operation (DocumentSession.Save.cs).
/// </summary>
/// <remarks>
/// Not thread-safe by contract; overlapping calls are detected where they would corrupt the maps
/// (<see cref="Enter"/>) and refused with <see cref="InvalidOperationException"/>.
/// </remarks>
internal sealed partial class DocumentSession(DocumentStore store) : IAsyncDocumentSession
{
    private readonly Dictionary<string, SessionEntry> _byId = new(StringComparer.Ordinal);
    private readonly Dictionary<object, SessionEntry> _byEntity = new(ReferenceEqualityComparer.Instance);
    private bool _disposed;
    private int _busy;

    public DocumentStore DocumentStore => store;

    public void Store<T>(T entity, JsonTypeInfo<T> typeInfo, string? id = null, long? expectedVersion = null) where T : class
    {
        ArgumentNullException.ThrowIfNull(entity);
        ArgumentNullException.ThrowIfNull(typeInfo);
        CheckExpected(expectedVersion);
        store.ThrowIfReplica("Store"); // I9
        using var scope = Enter();
        var type = DocumentType.For(typeInfo);
        if (_byEntity.TryGetValue(entity, out var tracked))
        {
            if (id != null && id != tracked.Id)
            {
                throw new InvalidOperationException($"This object is tracked as document '{tracked.Id}'; it cannot be stored as '{id}' too. Store a copy.");
            }

            if (tracked.State == EntryState.Delete)
            {
                tracked.State = EntryState.Store;
            }

            tracked.ExpectedVersion = expectedVersion ?? tracked.ExpectedVersion;
            return;
        }

        var generated = false;
        id ??= type.GetId(entity);
        if (id == null)
        {
            id = store.Ids.Next(type.Collection);
            generated = true;
        }

        var idBytes = DocumentNames.IdBytes(id);
        if (!generated)
        {
            store.Ids.ObserveId(id); // I5: whatever the collection
        }

        if (_byId.TryGetValue(id, out var existing))
        {
            if (existing.State != EntryState.Delete && existing.Entity != null)
            {
                throw new InvalidOperationException($"The session already tracks another object as document '{id}'; load it and change that object, or store a new one under another id.");
            }

            Forget(existing);
        }

        type.SetId(entity, id);
        var entry = new SessionEntry(id, idBytes)
        {
            State = EntryState.Store,
            Collection = type.Collection,
            CollectionBytes = type.CollectionBytes,
            Entity = entity,
            Type = type,
            ExpectedVersion = expectedVersion,
            Generated = generated,
            Version = existing?.Version ?? 0,
            OriginalJson = existing?.OriginalJson,
        };
        Track(entry);
    }

    public void StoreRaw(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion = null) =>
        StoreRawCore(collection, id, utf8Json, expectedVersion, null);

    public void StoreRaw(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion, DateTimeOffset? expiresAt) =>
        StoreRawCore(collection, id, utf8Json, expectedVersion, expiresAt == null ? null : ExpiryTicks(expiresAt.Value));

    public void SetExpiration<T>(T entity, DateTimeOffset? expiresAt) where T : class
    {
        ArgumentNullException.ThrowIfNull(entity);
        var ticks = expiresAt == null ? 0 : ExpiryTicks(expiresAt.Value);
        store.ThrowIfReplica("SetExpiration"); // I9
        using var scope = Enter();
        if (!_byEntity.TryGetValue(entity, out var entry) || entry.State == EntryState.Delete)
        {
            throw new InvalidOperationException("This object is not tracked by the session (or is deleted in it); load, query or store it first, then set its expiration.");
        }

        entry.PendingExpiresTicks = ticks; // XE4: wins over the JSON field and the loaded expiry
    }

    private static long ExpiryTicks(DateTimeOffset expiresAt) =>
        expiresAt.UtcTicks >= 1 ? expiresAt.UtcTicks : throw new ArgumentOutOfRangeException(nameof(expiresAt), expiresAt, "An expiry is a time after 0001-01-01T00:00:00Z.");

    private void StoreRawCore(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion, long? expiresTicks)
    {
        CheckExpected(expectedVersion);
        store.ThrowIfReplica("StoreRaw"); // I9
        using var scope = Enter();
        var collectionBytes = DocumentNames.CollectionBytes(collection);
        var idBytes = DocumentNames.IdBytes(id);
        store.Writes.CheckSize(utf8Json.Length, id);
        JsonValidation.ValidateObject(utf8Json, id);
        if (_byId.TryGetValue(id, out var existing))
        {
            if (existing.Entity != null && existing.State != EntryState.Delete)
            {
                throw new InvalidOperationException($"The session tracks an object as document '{id}'; change that object instead of storing raw JSON under its id.");
            }

            Forget(existing);
        }

        store.Ids.ObserveId(id); // I5: "Users/7" stored raw in "Other" takes 7 from "Users" too

        Track(new SessionEntry(id, idBytes)
        {
            State = EntryState.Store,
            Collection = collection,
            CollectionBytes = collectionBytes,
            RawJson = utf8Json.ToArray(),
            ExpectedVersion = expectedVersion,
            PendingExpiresTicks = expiresTicks, // a raw store replaces the document: no expiry kept (XE4)
            Version = existing?.Version ?? 0,
            OriginalJson = existing?.OriginalJson,
        });
    }

    public void Delete(string id) => DeleteCore(id, null);

    public void Delete(string id, long expectedVersion)
    {
        CheckExpected(expectedVersion);
        DeleteCore(id, expectedVersion);
    }

    public void Delete<T>(T entity) where T : class
    {
        ArgumentNullException.ThrowIfNull(entity);
        store.ThrowIfReplica("Delete"); // I9
        using var scope = Enter();
        if (!_byEntity.TryGetValue(entity, out var entry))
        {
            throw new InvalidOperationException("This object is not tracked by the session; delete it by id, or load it first.");
        }

        MarkDeleted(entry, null);
    }

    private void DeleteCore(string id, long? expectedVersion)
    {
        store.ThrowIfReplica("Delete"); // I9
        using var scope = Enter();
        var idBytes = DocumentNames.IdBytes(id);
        if (_byId.TryGetValue(id, out var entry))
        {
            MarkDeleted(entry, expectedVersion);
            return;
        }

        Track(new SessionEntry(id, idBytes) { State = EntryState.Delete, ExpectedVersion = expectedVersion });
    }

    private static void MarkDeleted(SessionEntry entry, long? expectedVersion)
    {
        entry.State = EntryState.Delete;
        entry.RawJson = null;
        entry.ExpectedVersion = expectedVersion ?? entry.ExpectedVersion;
    }

    public DocumentMetadata? GetMetadata<T>(T entity) where T : class
    {
        ArgumentNullException.ThrowIfNull(entity);
        ThrowIfDisposed();
        return _byEntity.TryGetValue(entity, out var entry) ? Metadata(entry) : null;
    }

    private static DocumentMetadata Metadata(SessionEntry entry) =>
        new(entry.Id, entry.Collection ?? "", entry.Version, new DateTimeOffset(entry.Ticks, TimeSpan.Zero))
        {
            Expires = (entry.PendingExpiresTicks ?? entry.ExpiresTicks) is var ticks and not 0 ? new DateTimeOffset(ticks, TimeSpan.Zero) : null,
        };

    public void Clear()
    {
        using var scope = Enter();
        _byId.Clear();
        _byEntity.Clear();
    }

    private void Track(SessionEntry entry)
    {
        _byId[entry.Id] = entry;
        if (entry.Entity != null)
        {
            _byEntity[entry.Entity] = entry;
        }
    }

    private void Forget(SessionEntry entry)
    {
        _byId.Remove(entry.Id);
        if (entry.Entity != null)
        {
            _byEntity.Remove(entry.Entity);
        }
    }

    private static void CheckExpected(long? expectedVersion)
    {
        if (expectedVersion < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(expectedVersion), expectedVersion, "An expected version is 0 (the document must not exist) or a version the store returned.");
        }
    }

    private void ThrowIfDisposed()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        store.ThrowIfDisposed();
    }

    /// <summary>Marks the session busy for one call; a second, overlapping call is refused (sessions are not thread-safe).</summary>
    private BusyScope Enter()
    {
        ThrowIfDisposed();
        if (Interlocked.Exchange(ref _busy, 1) != 0)
        {
            throw new InvalidOperationException("The session is already in use by another call (a save or load still running, or another thread). A session is used by one caller at a time: await each call, and open one session per concurrent unit of work.");
        }

        return new BusyScope(this);
    }

    private readonly struct BusyScope(DocumentSession session) : IDisposable
    {
        public void Dispose() => Volatile.Write(ref session._busy, 0);
    }

    public void Dispose()
    {
        _disposed = true;
        _byId.Clear();
        _byEntity.Clear();
    }

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
