using System.Text.Json;

namespace Voron.Documents;

/// <summary>
/// How a <see cref="DocumentStore"/> opens and behaves. Plain settable properties, so it binds
/// from configuration (<c>configuration.GetSection("Documents").Bind(options)</c>, or the options
/// pattern); <see cref="Validate()"/> says what is wrong with a bound instance.
/// </summary>
public sealed class DocumentStoreOptions
{
    /// <summary>The store's directory (created if missing). Required unless <see cref="InMemory"/>.</summary>
    public string? Path { get; set; }

    /// <summary>Keep the store in this process's memory (tests, caches); <see cref="Path"/> is ignored. Default false.</summary>
    public bool InMemory { get; set; }

    /// <summary>
    /// When a save is acknowledged: <see cref="DurabilityMode.Durable"/> (default) once its journal
    /// write is on disk (fdatasync); <see cref="DurabilityMode.Lazy"/> once the OS has it, flushed
    /// within <see cref="LazyFlushInterval"/>.
    /// </summary>
    public DurabilityMode Durability { get; set; } = DurabilityMode.Durable;

    /// <summary>In <see cref="DurabilityMode.Lazy"/> mode, how often the journal is flushed. Default 100 ms.</summary>
    public TimeSpan LazyFlushInterval { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>The largest document, in bytes of UTF-8 JSON: 1 KiB to 256 MiB, default 16 MiB. Larger ones are refused with <see cref="DocumentLimitException"/>.</summary>
    public int MaxDocumentBytes { get; set; } = DocumentLimits.DefaultMaxDocumentBytes;

    /// <summary>Documents of at least this many bytes are LZ4-compressed when that saves an eighth or more. 0 turns compression off. Default 2,048.</summary>
    public int CompressionThresholdBytes { get; set; } = 2048;

    /// <summary>
    /// Whether a session saves a document it loaded only if no one changed it since (the version it
    /// loaded is the expected version), and deletes one it loaded on the same condition; a conflict
    /// throws <see cref="ConcurrencyException"/>. Default true: no lost updates. False: last write wins,
    /// unless a call gives an expected version.
    /// </summary>
    public bool OptimisticConcurrency { get; set; } = true;

    /// <summary>Documents per transaction in <see cref="DocumentStore.BulkInsertAsync{T}(IEnumerable{T}, System.Text.Json.Serialization.Metadata.JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>. Default 10,000.</summary>
    public int BulkInsertBatchSize { get; set; } = 10_000;

    /// <summary>Documents an index build indexes per transaction, between which sessions' saves proceed. Default 1,000.</summary>
    public int IndexBuildBatchSize { get; set; } = 1000;

    /// <summary>
    /// The serializer options the reflection-based conveniences (<see cref="DocumentSessionExtensions"/>) use;
    /// null: <see cref="JsonSerializerDefaults.Web"/> (camelCase names). Typed calls use their
    /// <c>JsonTypeInfo</c>'s options instead. Not bound from configuration.
    /// </summary>
    public JsonSerializerOptions? SerializerOptions { get; set; }

    /// <summary>The change feed: whether writes are logged for <see cref="DocumentStore.Changes"/>, and how long changes are kept.</summary>
    public ChangeFeedOptions ChangeFeed { get; set; } = new();

    /// <summary>Where the store reads "now" for its background work (change feed retention); default <see cref="System.TimeProvider.System"/>. Not bound from configuration.</summary>
    public TimeProvider TimeProvider { get; set; } = TimeProvider.System;

    /// <summary>Document expiration: the sweeper's cadence and batch, and the JSON field an expiry may come from (<see cref="ExpirationOptions"/>).</summary>
    public ExpirationOptions Expiration { get; set; } = new();

    /// <summary>
    /// Returns the store's 256-bit encryption key (exactly 32 bytes), given the store's directory:
    /// the store is created encrypted with it, and must be opened with it from then on
    /// (<see cref="StorageEnvironmentOptions.EncryptionKeyProvider"/>, which it becomes: called
    /// once per open; a wrong or missing key is an <see cref="EncryptionKeyException"/> with nothing
    /// changed). Null (default) = not encrypted. Not bound from configuration, and never logged:
    /// fetch the key from a key vault or the OS key store. Ignored by
    /// <see cref="DocumentStore.Open(StorageEnvironment, DocumentStoreOptions?, System.Diagnostics.Metrics.IMeterFactory?)"/>
    /// (the environment's own key applies); refused by <see cref="DocumentStore.OpenReplica"/>
    /// (replicas of an encrypted store are not supported yet).
    /// </summary>
    public Func<string, byte[]>? EncryptionKeyProvider { get; set; }

    /// <summary>Throws <see cref="ArgumentException"/> naming the first setting that is not valid.</summary>
    public void Validate() => Validate(requireLocation: true);

    /// <summary>As <see cref="Validate()"/>; a store opened over an environment needs no location.</summary>
    internal void Validate(bool requireLocation)
    {
        if (requireLocation && !InMemory && string.IsNullOrWhiteSpace(Path))
        {
            throw new ArgumentException("DocumentStoreOptions.Path is required (or set InMemory = true).");
        }

        if (MaxDocumentBytes is < 1024 or > DocumentLimits.MaxDocumentBytesCeiling)
        {
            throw new ArgumentException($"DocumentStoreOptions.MaxDocumentBytes must be 1,024 to {DocumentLimits.MaxDocumentBytesCeiling:N0}; it is {MaxDocumentBytes:N0}.");
        }

        if (CompressionThresholdBytes < 0)
        {
            throw new ArgumentException("DocumentStoreOptions.CompressionThresholdBytes may not be negative.");
        }

        if (BulkInsertBatchSize is < 1 or > 1_000_000)
        {
            throw new ArgumentException($"DocumentStoreOptions.BulkInsertBatchSize must be 1 to 1,000,000; it is {BulkInsertBatchSize:N0}.");
        }

        if (IndexBuildBatchSize is < 1 or > 1_000_000)
        {
            throw new ArgumentException($"DocumentStoreOptions.IndexBuildBatchSize must be 1 to 1,000,000; it is {IndexBuildBatchSize:N0}.");
        }

        if (LazyFlushInterval <= TimeSpan.Zero)
        {
            throw new ArgumentException("DocumentStoreOptions.LazyFlushInterval must be positive.");
        }

        if (ChangeFeed == null || TimeProvider == null)
        {
            throw new ArgumentException($"DocumentStoreOptions.{(ChangeFeed == null ? nameof(ChangeFeed) : nameof(TimeProvider))} may not be null.");
        }

        if (ChangeFeed.Retention <= TimeSpan.Zero)
        {
            throw new ArgumentException("DocumentStoreOptions.ChangeFeed.Retention must be positive.");
        }

        if (Expiration == null)
        {
            throw new ArgumentException("DocumentStoreOptions.Expiration may not be null.");
        }

        Expiration.Validate();
    }

    internal DocumentStoreOptions Clone()
    {
        var clone = (DocumentStoreOptions)MemberwiseClone();
        clone.ChangeFeed = ChangeFeed?.Clone()!;
        clone.Expiration = Expiration?.Clone()!;
        return clone;
    }
}
