using System.Globalization;
using System.Text;
using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// The same documents through Voron.Documents as an app uses it: a session per unit of work, typed
/// calls with source-generated JSON metadata, the city and age indexes. The join is done in the
/// app: the purchase rows are read with SQL from the same store's VFS (an ordinary table, no
/// <c>voron_docs</c>), then their profiles are loaded by id in one session call
/// (<c>LoadAsync(ids)</c>, one snapshot). The cross-door write has no SQL side here: the purchase
/// goes in as a small raw document beside the profile, one session, one transaction.
/// </summary>
internal sealed class VoronDocumentApiEngine : ISqlDocsEngine
{
    private const string PurchaseRows = "SELECT id, amount, profile_id FROM purchases WHERE id >= $first AND id < $end";
    private static readonly ProfileJson Json = ProfileJson.Default;

    private readonly SqlDocsStore _store;

    private VoronDocumentApiEngine(SqlDocsStore store) => _store = store;

    public static async Task<VoronDocumentApiEngine> CreateAsync(string directory, long documents) =>
        new(await SqlDocsStore.CreateAsync(directory, documents, bindDocuments: false).ConfigureAwait(false));

    public string Name => SqlDocsEngines.VoronDocuments;

    public string Durability => SqlDocsStore.Durability + " (SaveChangesAsync; concurrent sessions share transactions through the merger)";

    public bool UsesThreads => false;

    public ISqlDocsCaller CreateCaller() => new Caller(_store);

    public void Settle() => _store.Environment.FlushToDataFile();

    public IReadOnlyDictionary<string, string> Plans()
    {
        using var session = _store.Documents.OpenSession();
        return new Dictionary<string, string>
        {
            [Diagnostics.Experiments.SqlDocs.SqlDocsWorkloads.QueryEqual] = session.Query(Json.Profile).Where(p => p.City == "city-001").Take(20).Explain(),
            [Diagnostics.Experiments.SqlDocs.SqlDocsWorkloads.QueryRange] = session.Query(Json.Profile).Where(p => p.Age >= 30 && p.Age < 33).OrderBy(p => p.Age).Take(20).Explain(),
        };
    }

    public void Dispose() => _store.Dispose();

    private sealed class Caller(SqlDocsStore store) : ISqlDocsCaller
    {
        private readonly DocumentStore _documents = store.Documents;
        private SqliteConnection? _connection;
        private SqliteCommand? _purchaseRows;

        public async ValueTask<Profile?> LoadAsync(string id)
        {
            await using var session = _documents.OpenSession();
            return await session.LoadAsync(id, Json.Profile).ConfigureAwait(false);
        }

        public async ValueTask<int> QueryEqualAsync(string city, int take)
        {
            await using var session = _documents.OpenSession();
            return (await session.Query(Json.Profile).Where(p => p.City == city).Take(take).ToListAsync().ConfigureAwait(false)).Count;
        }

        public async ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take)
        {
            await using var session = _documents.OpenSession();
            return (await session.Query(Json.Profile).Where(p => p.Age >= minAge && p.Age < maxAge).OrderBy(p => p.Age).Take(take)
                .ToListAsync().ConfigureAwait(false)).Count;
        }

        public async ValueTask<int> JoinAsync(long firstPurchase, int count)
        {
            if (_purchaseRows == null)
            {
                _connection = store.Connect();
                _purchaseRows = SqlDocsData.Prepare(_connection, PurchaseRows, ("$first", SqliteType.Integer), ("$end", SqliteType.Integer));
            }

            _purchaseRows.Parameters[0].Value = firstPurchase;
            _purchaseRows.Parameters[1].Value = firstPurchase + count;
            var rows = new List<(long Id, double Amount, string Profile)>(count);
            using (var reader = _purchaseRows.ExecuteReader())
            {
                while (reader.Read())
                {
                    rows.Add((reader.GetInt64(0), reader.GetDouble(1), reader.GetString(2)));
                }
            }

            await using var session = _documents.OpenSession();
            var profiles = await session.LoadAsync(rows.Select(r => r.Profile).Distinct(StringComparer.Ordinal), Json.Profile).ConfigureAwait(false);
            return rows.Count(r => profiles.GetValueOrDefault(r.Profile) is { Name.Length: > 0 });
        }

        public async ValueTask InsertAsync(Profile profile)
        {
            await using var session = _documents.OpenSession();
            session.Store(profile, Json.Profile, profile.Id);
            await session.SaveChangesAsync().ConfigureAwait(false);
        }

        public async ValueTask CrossDoorAsync(Profile profile, double amount)
        {
            var purchase = Encoding.UTF8.GetBytes(string.Create(CultureInfo.InvariantCulture, $"{{\"profileId\":\"{profile.Id}\",\"amount\":{amount}}}"));
            await using var session = _documents.OpenSession();
            session.Store(profile, Json.Profile, profile.Id);
            session.StoreRaw("Purchase", "purchases/" + profile.Id, purchase);
            await session.SaveChangesAsync().ConfigureAwait(false);
        }

        public void Dispose()
        {
            _purchaseRows?.Dispose();
            _connection?.Dispose();
        }
    }
}
