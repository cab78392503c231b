using System.Text;
using System.Text.Json;
using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// The engine's floor under a document save and load (the documents experiment's reference row,
/// <c>voron-kv</c>):
/// Voron.Core alone, a <see cref="StorageEnvironment"/> opened as <see cref="DocumentStore.Open(DocumentStoreOptions, System.Diagnostics.Metrics.IMeterFactory?)"/>
/// opens its own (the same directory options, the durability and lazy-flush interval of a default
/// <see cref="DocumentStoreOptions"/> in Durable mode, every other option at its default, asynchronous
/// commit included), one tree, and the bytes the document path stores: key = the id's UTF-8 bytes,
/// value = the profile's JSON from the same source-generated serializer. No collection tree, no
/// indexes, no metadata, no sessions: what is left of a save is one merged put, of a load one
/// read transaction, a lookup and the deserialization. Queries and updates have no floor here
/// (<see cref="Runs"/>): a query needs the index trees this engine does not keep, an update's
/// version check the metadata.
/// </summary>
internal sealed class VoronKvDocumentEngine : IDocumentEngine
{
    internal const string TreeName = "profiles";
    private static readonly ProfileJson Json = ProfileJson.Default;
    private readonly int _bulkBatch;

    public VoronKvDocumentEngine(string directory)
    {
        var defaults = new DocumentStoreOptions();
        _bulkBatch = defaults.BulkInsertBatchSize;
        Environment = VoronStore.Open(directory, tune: options => options.LazyFlushInterval = defaults.LazyFlushInterval);
        try
        {
            using var write = Environment.BeginWrite();
            write.CreateTree(TreeName);
            write.Commit();
        }
        catch
        {
            Environment.Dispose();
            throw;
        }
    }

    public StorageEnvironment Environment { get; }

    public StorageEnvironment VoronEnvironment => Environment;

    public string Name => DocumentEngineCatalog.VoronKv;

    public string Durability => "Voron.Core as the document store opens it (Durable): a put completes after the journal fdatasync covering it (concurrent puts share it through the merger)";

    public bool UsesThreads => false;

    /// <summary>Insert, load and bulk: the workloads with an engine-level equivalent.</summary>
    public bool Runs(string workload) => workload is DocumentWorkloads.Insert or DocumentWorkloads.Load or DocumentWorkloads.Bulk;

    public IDocumentCaller CreateCaller() => new Caller(Environment);

    /// <summary>
    /// Puts in transactions of the document store's bulk batch size through the merger, one in
    /// flight while the next is serialized, as <see cref="DocumentStore.BulkInsertAsync{T}(IEnumerable{T}, System.Text.Json.Serialization.Metadata.JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/> does.
    /// </summary>
    public async Task<long> BulkInsertAsync(IEnumerable<Profile> profiles)
    {
        long written = 0;
        Task? inFlight = null;
        var batch = new List<(byte[] Key, byte[] Value)>(_bulkBatch);
        foreach (var profile in profiles)
        {
            batch.Add(Encode(profile));
            if (batch.Count >= _bulkBatch)
            {
                await (inFlight ?? Task.CompletedTask).ConfigureAwait(false);
                inFlight = PutAll(batch);
                written += batch.Count;
                batch = new List<(byte[] Key, byte[] Value)>(_bulkBatch);
            }
        }

        await (inFlight ?? Task.CompletedTask).ConfigureAwait(false);
        if (batch.Count > 0)
        {
            await PutAll(batch).ConfigureAwait(false);
            written += batch.Count;
        }

        return written;
    }

    private Task PutAll(List<(byte[] Key, byte[] Value)> batch) => Environment.ExecuteAsync(tx =>
    {
        var tree = tx.CreateTree(TreeName);
        foreach (var (key, value) in batch)
        {
            tree.Put(key, value);
        }
    });

    private static (byte[] Key, byte[] Value) Encode(Profile profile) =>
        (Encoding.UTF8.GetBytes(profile.Id ?? throw new InvalidOperationException("a profile without an id")), JsonSerializer.SerializeToUtf8Bytes(profile, Json.Profile));

    public void EndRound() => Environment.FlushToDataFile();

    public void Dispose() => Environment.Dispose();

    private sealed class Caller(StorageEnvironment environment) : IDocumentCaller
    {
        public async ValueTask InsertAsync(Profile profile)
        {
            var (key, value) = Encode(profile);
            await environment.ExecuteAsync(tx => tx.CreateTree(TreeName).Put(key, value)).ConfigureAwait(false);
        }

        public ValueTask<Profile?> LoadAsync(string id)
        {
            Span<byte> key = stackalloc byte[Encoding.UTF8.GetMaxByteCount(id.Length)];
            key = key[..Encoding.UTF8.GetBytes(id, key)];
            using var read = environment.BeginRead();
            var tree = read.OpenTree(TreeName);
            return ValueTask.FromResult(tree != null && tree.TryGet(key, out var value) ? JsonSerializer.Deserialize(value, Json.Profile) : null);
        }

        public ValueTask<int> QueryEqualAsync(string city, int take) => throw NoFloor(DocumentWorkloads.QueryEqual);

        public ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take) => throw NoFloor(DocumentWorkloads.QueryRange);

        public ValueTask<bool> UpdateAsync(string id, int seed) => throw NoFloor(DocumentWorkloads.Update);

        private static NotSupportedException NoFloor(string workload) =>
            new($"{DocumentEngineCatalog.VoronKv} has no {workload}: it keeps no indexes or versions (the experiment skips it)");

        public void Dispose()
        {
        }
    }
}
