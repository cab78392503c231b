using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Changes;
using Voron.Documents.Diagnostics;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;
using Voron.Documents.Sessions;
using Voron.Documents.Storage;

namespace Voron.Documents;

// Design notes — the document store.
//
//   DocumentStore.Open: the layout check (Storage/StoreLayout.cs: format version, upgrade, feed
//     state) reads the index catalog the store's catalog snapshot (Indexing/CatalogCache.cs)
//     starts from.
//   DocumentStore (one per store) -> session (unit of work) -> SaveChangesAsync
//     caller's side: serialize the changed entities, validate raw JSON, build the records
//       (Storage/DocumentRecord.cs), compute index entries with the catalog snapshot held (I2)
//     inside one merged operation (Storage/WriteBatch.cs, run by Voron.Core's transaction
//       merger in the batch's write transaction): check the catalog generation (I2), read each
//       stored version and check expected versions (I3), remove old index entries, write the
//       records with fresh versions (I4) and add entries with unique checks, raise id counters
//       (I5). A throw fails that session alone: nothing of it is written (the merger drops the
//       transaction and runs its batch-mates again).
//     SaveChangesAsync completes when the merger acknowledges the batch: durable (Lazy mode:
//       handed to the OS). Concurrent sessions share transactions and journal flushes.
//
// Invariants:
//   I1. A session's changes are one merged operation: all of them are committed, or none.
//   I2. Index entries computed with catalog generation G are written only by a transaction whose
//       "gen" is G; otherwise the operation throws StaleCatalogException and the session
//       computes them again with the newer catalog. Catalog changes (define, drop, build done)
//       raise "gen" in their own transaction and are serialized by Indexing/IndexBuilder.cs.
//   I3. A write with an expected version commits only if the stored version (0: none) equals it,
//       checked in the transaction that writes.
//   I4. Versions come from one counter ("version" in @docs.meta) raised in the writing
//       transaction: unique across the store, and a later write has a larger one. A delete of
//       a stored document takes one too (its change log entry's position, CF1), though the
//       session reports none.
//   I5. Generated ids take n from IdGenerator, seeded from "ctr/<collection>"; every stored id of
//       the shape "<collection>/<n>", in whatever collection (ids are unique across the store),
//       raises that counter to n in its transaction (and the generator at Store time), and the
//       generator skips an n whose id a stored document has, so a generated id is never one a
//       stored document has or had.
//   I6. A LoadAsync (of one id or many) and a query each read one snapshot: one read transaction.
//   I7. One DocumentStore per StorageEnvironment: the generator of I5 and the catalog snapshot
//       (Indexing/CatalogCache.cs) are the store's, one of each per store.
//   I8. A store over a read replica (StorageEnvironment.OpenReplica) writes nothing when it opens:
//       the layout is checked, never written or upgraded (the primary writes it and the replica
//       applies it), the feed's state is the one the primary recorded, and neither the log's
//       pruning nor the expiry sweeper runs (the primary's prune and sweep arrive as its
//       transactions). DocumentStore.Replica.cs.
//   I9. On a replica every write path refuses before it does anything, with the replica's
//       InvalidOperationException (RE1): a session's Store, StoreRaw, Delete and SetExpiration, a
//       SaveChangesAsync with anything to write, bulk insert, import, an expiry sweep, index
//       definition and drop (EnsureIndexAsync of an index in place as defined and ready returns
//       false, as on the primary), and subscriptions' create, delete and open (a worker writes its
//       position). Reads — loads, queries, statistics, export, integrity, the change feed — work on
//       the replica's snapshot.
//   I10. A save's transaction id (IAsyncDocumentSession.LastTransactionId) is the id of the merged
//       transaction that committed it; on a replica of the store, once WaitForTransactionAsync of
//       that id completes, every read sees the save.

/// <summary>
/// A JSON document store over a Voron store: collections of documents addressed by id, sessions
/// whose save is one ACID transaction, optimistic concurrency, secondary indexes kept in the same
/// transaction, and queries that use them. Open one per store directory and share it (thread-safe);
/// open a session per unit of work.
/// </summary>
public sealed partial class DocumentStore : IAsyncDisposable, IDisposable
{
    private static readonly ConditionalWeakTable<StorageEnvironment, object> OpenStores = new();

    private readonly bool _ownsEnvironment;
    private int _disposed;

    private DocumentStore(StorageEnvironment environment, bool ownsEnvironment, DocumentStoreOptions options, IMeterFactory? meterFactory)
    {
        if (!OpenStores.TryAdd(environment, this))
        {
            throw new InvalidOperationException($"A DocumentStore is already open over the store '{environment.Path}'; open one per store and share it (I7).");
        }

        try
        {
            Environment = environment;
            _ownsEnvironment = ownsEnvironment;
            Options = options;
            Telemetry = new DocumentsTelemetry(environment.Path, meterFactory);
            Ids = new IdGenerator(environment, environment.Path);
            ExpiryField = options.Expiration.JsonField is { } field ? new ExpiryField(field) : null;
            Writes = new WritePort(this);
            IsReplica = environment.Replica != null;
            IndexCatalog catalog;
            if (IsReplica)
            {
                catalog = StoreLayout.OpenReplica(environment, out var feedOn); // I8: the feed's state is the primary's
                options.ChangeFeed.Enabled = feedOn;
            }
            else
            {
                catalog = StoreLayout.Open(environment, options.ChangeFeed.Enabled);
            }

            Catalogs = new CatalogCache(environment, catalog, ThrowIfDisposed);
            IndexBuilder = new IndexBuilder(environment, Telemetry, Catalogs.Reload, options.IndexBuildBatchSize);
            Feed = new ChangeFeed(environment, options, ThrowIfDisposed)
            {
                LowestSubscriptionPosition = read => Voron.Documents.Subscriptions.SubscriptionTable.LowestPosition(read, environment.Path), // SU3
            };
            if (!IsReplica)
            {
                Feed.Start(); // I8
            }

            Bulk = new BulkWriter(environment, options, () => Catalogs.Current, Catalogs.RefreshAsync, ThrowIfDisposed);
            Sweeper = new ExpirySweeper(environment, options, Telemetry, () => NowTicks, SubmitAsync, ThrowIfDisposed, () => IsDisposed);
            if (!IsReplica)
            {
                Sweeper.Start(); // I8
            }
        }
        catch
        {
            OpenStores.Remove(environment);
            throw;
        }
    }

    /// <summary>Opens (creating if needed) the store <paramref name="options"/> describe; the store owns its <see cref="StorageEnvironment"/>.</summary>
    /// <param name="options">Where and how; <see cref="DocumentStoreOptions.Validate()"/> runs first.</param>
    /// <param name="meterFactory">Where to create the <c>Voron.Documents</c> meter (dependency injection); null: a process-wide meter.</param>
    public static DocumentStore Open(DocumentStoreOptions options, IMeterFactory? meterFactory = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        var environmentOptions = options.InMemory
            ? StorageEnvironmentOptions.CreateInMemory()
            : StorageEnvironmentOptions.ForDirectory(options.Path!);
        environmentOptions.Durability = options.Durability;
        environmentOptions.LazyFlushInterval = options.LazyFlushInterval;
        environmentOptions.EncryptionKeyProvider = options.EncryptionKeyProvider;
        var environment = StorageEnvironment.Open(environmentOptions);
        try
        {
            return new DocumentStore(environment, ownsEnvironment: true, options.Clone(), meterFactory);
        }
        catch
        {
            environment.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Opens the document store kept in an open <paramref name="environment"/> (which may hold other
    /// trees too). The caller keeps owning the environment: disposing the store leaves it open.
    /// <see cref="DocumentStoreOptions.Path"/>, <see cref="DocumentStoreOptions.InMemory"/> and the
    /// durability settings are the environment's and are ignored here.
    /// </summary>
    public static DocumentStore Open(StorageEnvironment environment, DocumentStoreOptions? options = null, IMeterFactory? meterFactory = null)
    {
        ArgumentNullException.ThrowIfNull(environment);
        options = options?.Clone() ?? new DocumentStoreOptions();
        options.Validate(requireLocation: false); // the environment is open already
        return new DocumentStore(environment, ownsEnvironment: false, options, meterFactory);
    }

    /// <summary>The Voron store the documents live in.</summary>
    public StorageEnvironment Environment { get; }

    /// <summary>The store's directory.</summary>
    public string Path => Environment.Path;

    /// <summary>A session: a unit of work with an identity map, change tracking and one transaction per save. Not thread-safe; not bound to a thread.</summary>
    public IAsyncDocumentSession OpenSession()
    {
        ThrowIfDisposed();
        return new DocumentSession(this);
    }

    internal DocumentStoreOptions Options { get; }

    /// <summary>The serializer options of the reflection-based conveniences (DocumentSessionExtensions), made once.</summary>
    internal JsonSerializerOptions ReflectionOptions
    {
        [RequiresUnreferencedCode("Reflection-based JSON metadata.")]
        [RequiresDynamicCode("Reflection-based JSON metadata.")]
        get
        {
            if (_reflectionOptions == null)
            {
                var options = new JsonSerializerOptions(Options.SerializerOptions ?? new JsonSerializerOptions(JsonSerializerDefaults.Web));
                options.TypeInfoResolver ??= new DefaultJsonTypeInfoResolver();
                options.MakeReadOnly();
                Interlocked.CompareExchange(ref _reflectionOptions, options, null);
            }

            return _reflectionOptions;
        }
    }

    private JsonSerializerOptions? _reflectionOptions;

    internal DocumentsTelemetry Telemetry { get; }

    internal IdGenerator Ids { get; }

    /// <summary>The configured expiration field (ExpirationOptions.JsonField), or null.</summary>
    internal ExpiryField? ExpiryField { get; }

    /// <summary>"Now" for expiration (XE1), in UTC ticks, from <see cref="DocumentStoreOptions.TimeProvider"/>.</summary>
    internal long NowTicks => Options.TimeProvider.GetUtcNow().UtcTicks;

    /// <summary>The store's catalog snapshot (Indexing/CatalogCache.cs): the newest index catalog it has seen, and the catalog a transaction sees.</summary>
    internal CatalogCache Catalogs { get; }

    /// <summary>The newest index catalog this store has seen.</summary>
    internal IndexCatalog Catalog => Catalogs.Current;

    internal bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    internal void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(IsDisposed, this);

    /// <summary>The one way documents are written (WP1): prepare on the caller's thread, apply in the merged operation.</summary>
    internal WritePort Writes { get; }

    /// <summary>Bulk insert's and import's batches (Storage/BulkWriter.cs).</summary>
    internal BulkWriter Bulk { get; }

    /// <summary>The expiry sweeps, on demand and in the background (Storage/ExpirySweeper.cs).</summary>
    internal ExpirySweeper Sweeper { get; }

    /// <summary>Submits prepared writes as one merged operation (I1, I2): <see cref="WritePort.SubmitAsync"/>.</summary>
    internal async Task<WriteResult[]> SubmitAsync(IReadOnlyList<PreparedWrite> writes, CancellationToken cancellationToken) =>
        (await Writes.SubmitAsync(writes, null, cancellationToken).ConfigureAwait(false)).Results;

    /// <summary>As <see cref="SubmitAsync(IReadOnlyList{PreparedWrite}, CancellationToken)"/>, acknowledging a subscription batch in the same operation (SU1).</summary>
    internal Task<(WriteResult[] Results, long TransactionId)> SubmitAsync(IReadOnlyList<PreparedWrite> writes, Subscriptions.SubscriptionAck? ack, CancellationToken cancellationToken) =>
        Writes.SubmitAsync(writes, ack, cancellationToken);

    /// <summary>
    /// Closes the store. A store opened on a directory or in memory closes its
    /// <see cref="StorageEnvironment"/> (which first finishes queued saves and flushes the data
    /// file, synchronously); one opened over an environment leaves it open. Sessions of a closed
    /// store throw <see cref="ObjectDisposedException"/>.
    /// </summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        Feed.Stop(); // live feeds end (ObjectDisposedException) and the pruner stops before the environment closes
        Sweeper.Stop();
        OpenStores.Remove(Environment);
        _subscriptionsClosing.Cancel(); // SU2: subscription waiters fail
        if (_ownsEnvironment)
        {
            Environment.Dispose();
        }
    }

    /// <summary>As <see cref="Dispose"/>; the final flush runs synchronously on the calling thread.</summary>
    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
