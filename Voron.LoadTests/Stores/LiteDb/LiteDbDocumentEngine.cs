using LiteDB;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Stores.LiteDb;

/// <summary>
/// LiteDB 5 as its users write it: one <see cref="LiteDatabase"/> (thread-safe) in direct mode, a
/// typed collection mapped by its <see cref="BsonMapper"/>, <c>EnsureIndex</c> on city and age,
/// <c>Insert</c>/<c>FindById</c>/<c>Query().Where().Limit()</c>, <c>InsertBulk</c> for the bulk path.
/// Optimistic concurrency is by hand: a <see cref="Profile.Version"/> field checked and raised in an
/// explicit transaction (LiteDB's transactions are bound to the calling thread, so callers run on
/// threads). Writes go one at a time through a lock: LiteDB refuses more than 100 open
/// transactions ("Maximum number of transactions reached"), and it writes one at a time anyway.
/// Durability: strace of 200 single-document inserts showed each commit's log pages written with
/// one fsync after each page, on the committing thread, before Insert returns (about 4.4 page
/// writes and 4.4 fsyncs per commit): durable when it returns.
/// </summary>
internal sealed class LiteDbDocumentEngine : IDocumentEngine
{
    private const int BulkBatch = 10_000;

    private readonly LiteDatabase _database;
    private readonly ILiteCollection<Profile> _profiles;
    private readonly object _writes = new();

    public LiteDbDocumentEngine(string directory)
    {
        _database = LiteDbStore.Open(Path.Combine(directory, "docs.litedb"));
        _profiles = _database.GetCollection<Profile>("profiles");
        _profiles.EnsureIndex(p => p.City);
        _profiles.EnsureIndex(p => p.Age);
    }

    public string Name => DocumentEngineCatalog.LiteDb;

    public string Durability => LiteDbStore.Durability + " (strace: ~4.4 per single-document insert)";

    public bool UsesThreads => true;

    public IDocumentCaller CreateCaller() => new Caller(_database, _profiles, _writes);

    public Task<long> BulkInsertAsync(IEnumerable<Profile> profiles) => Task.FromResult((long)_profiles.InsertBulk(profiles, BulkBatch));

    public void EndRound()
    {
        // LiteDB checkpoints its log into the data file inside commits (every 1,000 pages): already timed.
    }

    public void Dispose() => _database.Dispose();

    private sealed class Caller(LiteDatabase database, ILiteCollection<Profile> profiles, object writes) : IDocumentCaller
    {
        public ValueTask InsertAsync(Profile profile)
        {
            lock (writes)
            {
                profiles.Insert(profile);
            }

            return ValueTask.CompletedTask;
        }

        public ValueTask<Profile?> LoadAsync(string id) => ValueTask.FromResult<Profile?>(profiles.FindById(id));

        public ValueTask<int> QueryEqualAsync(string city, int take) =>
            ValueTask.FromResult(profiles.Query().Where(p => p.City == city).Limit(take).ToList().Count);

        public ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take) =>
            ValueTask.FromResult(profiles.Query().Where(p => p.Age >= minAge && p.Age < maxAge).Limit(take).ToList().Count);

        public ValueTask<bool> UpdateAsync(string id, int seed)
        {
            var profile = profiles.FindById(id) ?? throw new InvalidOperationException($"'{id}' is missing");
            var loaded = profile.Version;
            ProfileDataSet.Change(profile, seed);
            lock (writes)
            {
                return ValueTask.FromResult(CheckAndUpdate(id, profile, loaded));
            }
        }

        private bool CheckAndUpdate(string id, Profile profile, int loaded)
        {
            database.BeginTrans();
            try
            {
                if (profiles.FindById(id)?.Version != loaded)
                {
                    database.Rollback();
                    return false;
                }

                profile.Version = loaded + 1;
                profiles.Update(profile);
                database.Commit();
                return true;
            }
            catch
            {
                database.Rollback();
                throw;
            }
        }

        public void Dispose()
        {
        }
    }
}
