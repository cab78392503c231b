using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// Voron.Documents as an app uses it: one <see cref="DocumentStore"/>, a session per unit of work,
/// typed calls with source-generated JSON metadata, indexes on city and age. Durable mode: a
/// session's save completes after the journal fdatasync that covers it; concurrent sessions share
/// transactions and flushes through the merger. Sealed (<c>voron-sealed</c>) when opened with a key.
/// </summary>
internal sealed class VoronDocumentEngine : IChangeFeedEngine
{
    private static readonly ProfileJson Json = ProfileJson.Default;

    /// <summary>The environment a sealed store was opened over, disposed after the store; null when the store owns its own.</summary>
    private readonly StorageEnvironment? _sealedEnvironment;

    private VoronDocumentEngine(DocumentStore store, StorageEnvironment? sealedEnvironment)
    {
        Store = store;
        _sealedEnvironment = sealedEnvironment;
    }

    /// <param name="directory">The store's directory.</param>
    /// <param name="changeFeed">Whether the store keeps its change feed (DocumentStoreOptions.ChangeFeed.Enabled; the feed-cost workload compares both).</param>
    /// <param name="sealingKey">The key to seal the store with (<see cref="VoronStore.NewSealingKey"/>); null: not sealed.</param>
    public static async Task<VoronDocumentEngine> OpenAsync(string directory, bool changeFeed = true, byte[]? sealingKey = null)
    {
        (DocumentStore Store, StorageEnvironment? Environment) opened = sealingKey == null
            ? (VoronStore.OpenDocuments(directory, changeFeed), null)
            : VoronStore.OpenSealedDocuments(directory, sealingKey, changeFeed);
        var (store, environment) = opened;
        var engine = new VoronDocumentEngine(store, environment);
        try
        {
            await store.EnsureIndexAsync(IndexDefinition.For(Json.Profile, "profiles_by_city", p => p.City)).ConfigureAwait(false);
            await store.EnsureIndexAsync(IndexDefinition.For(Json.Profile, "profiles_by_age", p => p.Age)).ConfigureAwait(false);
            return engine;
        }
        catch
        {
            engine.Dispose();
            throw;
        }
    }

    public DocumentStore Store { get; }

    public string Name => _sealedEnvironment == null ? DocumentEngineCatalog.Voron : DocumentEngineCatalog.VoronSealed;

    public string Durability => "Durable mode: a save completes after the journal fdatasync covering it (concurrent sessions share it)" +
                                (_sealedEnvironment == null ? "" : $"; {VoronStore.Sealing}");

    public bool UsesThreads => false;

    public IDocumentCaller CreateCaller() => new Caller(Store);

    public Task<long> BulkInsertAsync(IEnumerable<Profile> profiles) => Store.BulkInsertAsync(profiles, Json.Profile);

    public void EndRound() => Store.Environment.FlushToDataFile();

    public StorageEnvironment VoronEnvironment => Store.Environment;

    /// <summary>Stores one new profile in its own session; returns the version the save gave it (the feed-latency workload matches it to the change).</summary>
    public async ValueTask<long> SaveAsync(Profile profile)
    {
        await using var session = Store.OpenSession();
        session.Store(profile, Json.Profile);
        await session.SaveChangesAsync().ConfigureAwait(false);
        return session.GetMetadata(profile)!.Version;
    }

    public void Dispose()
    {
        Store.Dispose();
        _sealedEnvironment?.Dispose();
    }

    private sealed class Caller(DocumentStore store) : IDocumentCaller
    {
        public async ValueTask InsertAsync(Profile profile)
        {
            await using var session = store.OpenSession();
            session.Store(profile, Json.Profile);
            await session.SaveChangesAsync().ConfigureAwait(false);
        }

        public async ValueTask<Profile?> LoadAsync(string id)
        {
            await using var session = store.OpenSession();
            return await session.LoadAsync(id, Json.Profile).ConfigureAwait(false);
        }

        public async ValueTask<int> QueryEqualAsync(string city, int take)
        {
            await using var session = store.OpenSession();
            return (await session.Query(Json.Profile).Where(p => p.City == city).Take(take).ToListAsync().ConfigureAwait(false)).Count;
        }

        public async ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take)
        {
            await using var session = store.OpenSession();
            return (await session.Query(Json.Profile).Where(p => p.Age >= minAge && p.Age < maxAge).Take(take).ToListAsync().ConfigureAwait(false)).Count;
        }

        public async ValueTask<bool> UpdateAsync(string id, int seed)
        {
            await using var session = store.OpenSession();
            var profile = await session.LoadAsync(id, Json.Profile).ConfigureAwait(false) ?? throw new InvalidOperationException($"'{id}' is missing");
            ProfileDataSet.Change(profile, seed);
            try
            {
                await session.SaveChangesAsync().ConfigureAwait(false); // expected version: the one loaded
                return true;
            }
            catch (ConcurrencyException)
            {
                return false;
            }
        }

        public void Dispose()
        {
        }
    }
}
