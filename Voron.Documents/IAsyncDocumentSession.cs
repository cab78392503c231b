using System.Buffers;
using System.Text.Json.Serialization.Metadata;

namespace Voron.Documents;

/// <summary>
/// A unit of work over a <see cref="DocumentStore"/>: stores, loads, deletes and queries, saved
/// together by <see cref="SaveChangesAsync"/> as one ACID transaction (all or nothing). It keeps an
/// identity map (loading an id twice gives the same object), tracks loaded documents (only those
/// whose serialization changed since the load are written, keeping the stored properties their type
/// does not declare) and sees its own pending changes in its loads. Not thread-safe — one caller
/// at a time — but not bound to a thread: it may cross awaits. Typed calls take the serializer's
/// <see cref="JsonTypeInfo{T}"/> (source generation, Native AOT); <see cref="DocumentSessionExtensions"/>
/// adds reflection-based overloads without it.
/// </summary>
public interface IAsyncDocumentSession : IAsyncDisposable, IDisposable
{
    /// <summary>The store this session belongs to.</summary>
    DocumentStore DocumentStore { get; }

    /// <summary>
    /// Stores <paramref name="entity"/> at the next save, in its type's collection. The id is
    /// <paramref name="id"/>, else the entity's <c>Id</c> member, else a generated
    /// <c>&lt;collection&gt;/&lt;n&gt;</c> that no stored document has or had, in any collection; the
    /// id is written into the <c>Id</c> member when it has a setter. An entity the session did not
    /// load replaces the whole stored document (its properties the type does not declare too).
    /// With <paramref name="expectedVersion"/> the save fails with <see cref="ConcurrencyException"/>
    /// unless the stored version is that one (0: no document may exist). The entity is tracked
    /// from now on: later changes to it are saved too.
    /// </summary>
    void Store<T>(T entity, JsonTypeInfo<T> typeInfo, string? id = null, long? expectedVersion = null) where T : class;

    /// <summary>
    /// Stores raw UTF-8 JSON as it is (no serializer): checked now to be one valid JSON object
    /// (else <see cref="InvalidJsonException"/> with the byte position, and nothing is pending),
    /// copied, and written at the next save.
    /// </summary>
#pragma warning disable RS0027 // shipped with its optional parameter before the overload with an expiry was added
    void StoreRaw(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion = null);
#pragma warning restore RS0027

    /// <summary>
    /// As <see cref="StoreRaw(string, string, ReadOnlySpan{byte}, long?)"/>, with an expiry:
    /// <paramref name="expiresAt"/> (null: none, unless <see cref="ExpirationOptions.JsonField"/>
    /// gives one) is when the document starts to count as absent (see <see cref="ExpirationOptions"/>).
    /// </summary>
    void StoreRaw(string collection, string id, ReadOnlySpan<byte> utf8Json, long? expectedVersion, DateTimeOffset? expiresAt);

    /// <summary>
    /// Sets (or, with null, removes) the expiry of a tracked entity (loaded, queried or stored in this
    /// session); the next save writes it, even when the entity's JSON did not change. From
    /// <paramref name="expiresAt"/> on, reads treat the document as absent and the sweeper deletes it
    /// (<see cref="ExpirationOptions"/>). It wins over <see cref="ExpirationOptions.JsonField"/>. A
    /// loaded document keeps its stored expiry through saves that do not set one.
    /// Throws <see cref="InvalidOperationException"/> for an entity the session does not track.
    /// </summary>
    void SetExpiration<T>(T entity, DateTimeOffset? expiresAt) where T : class;

    /// <summary>Deletes the document <paramref name="id"/> at the next save (nothing happens if none exists).</summary>
    void Delete(string id);

    /// <summary>Deletes the document <paramref name="id"/> at the next save if its version is <paramref name="expectedVersion"/>; else the save throws <see cref="ConcurrencyException"/>.</summary>
    void Delete(string id, long expectedVersion);

    /// <summary>Deletes a tracked entity's document at the next save.</summary>
    void Delete<T>(T entity) where T : class;

    /// <summary>Loads a document, or null when there is none (or the session deleted it). The entity's <c>Id</c> member is set to <paramref name="id"/>, whatever the JSON holds; it is saved only if it changes, and then keeps the stored properties its type does not declare. Throws <see cref="InvalidOperationException"/> when it belongs to another collection than <typeparamref name="T"/>'s, and a <see cref="System.Text.Json.JsonException"/> naming the id when its JSON does not fit <typeparamref name="T"/>.</summary>
    Task<T?> LoadAsync<T>(string id, JsonTypeInfo<T> typeInfo, CancellationToken cancellationToken = default) where T : class;

    /// <summary>Loads several documents from one snapshot; missing ids map to null.</summary>
    Task<IReadOnlyDictionary<string, T?>> LoadAsync<T>(IEnumerable<string> ids, JsonTypeInfo<T> typeInfo, CancellationToken cancellationToken = default) where T : class;

    /// <summary>Writes a document's stored JSON, as stored, into <paramref name="destination"/>; returns its metadata, or null (and writes nothing) when there is none.</summary>
    Task<DocumentMetadata?> LoadRawAsync(string id, IBufferWriter<byte> destination, CancellationToken cancellationToken = default);

    /// <summary>Writes a document's stored JSON, as stored, to <paramref name="destination"/> (an HTTP response body); returns its metadata, or null when there is none.</summary>
    Task<DocumentMetadata?> LoadRawAsync(string id, Stream destination, CancellationToken cancellationToken = default);

    /// <summary>A document's stored JSON in a pooled buffer (dispose the result), or null when there is none.</summary>
    Task<RawDocument?> LoadRawAsync(string id, CancellationToken cancellationToken = default);

    /// <summary>A query over <typeparamref name="T"/>'s collection (see <see cref="IDocumentQuery{T}"/> for what it accepts); its results are tracked as loaded documents, their <c>Id</c> member set to their document's id.</summary>
    IDocumentQuery<T> Query<T>(JsonTypeInfo<T> typeInfo) where T : class;

    /// <summary>A query over a collection's raw documents, by JSON paths.</summary>
    IRawDocumentQuery QueryRaw(string collection);

    /// <summary>The id, collection, version, last-modified time and expiry of a tracked entity (version 0 until it is first saved), or null when the session does not track it.</summary>
    DocumentMetadata? GetMetadata<T>(T entity) where T : class;

    /// <summary>Forgets every tracked entity and pending change (after a <see cref="ConcurrencyException"/>, to start over).</summary>
    void Clear();

    /// <summary>
    /// Saves every pending change and every change made to tracked entities as one transaction,
    /// through the store's transaction merger (concurrent sessions share journal flushes). Completes
    /// when the transaction is durable. On <see cref="ConcurrencyException"/>,
    /// <see cref="UniqueConstraintException"/>, <see cref="DocumentLimitException"/> or any other
    /// error nothing of the session is saved and its pending changes stay as they were.
    /// Cancellation applies until the transaction starts.
    /// </summary>
    Task SaveChangesAsync(CancellationToken cancellationToken = default);

    /// <summary>
    /// The id of the transaction the last <see cref="SaveChangesAsync"/> that wrote committed in (0
    /// until one has); a save with nothing to write leaves it as it was. A read replica of the store
    /// shows that save once <see cref="DocumentStore.WaitForTransactionAsync"/> of this id completes
    /// there: hand it to the reader to read your own writes.
    /// </summary>
    long LastTransactionId { get; }
}
