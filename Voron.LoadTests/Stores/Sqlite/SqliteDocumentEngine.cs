using System.Text.Json;
using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Sql;

namespace Voron.LoadTests.Stores.Sqlite;

/// <summary>
/// SQLite as a .NET developer keeps JSON documents in it, through Microsoft.Data.Sqlite: a table
/// <c>docs(id TEXT PRIMARY KEY, version INTEGER, json TEXT)</c>, the JSON from System.Text.Json
/// (the same source-generated metadata as Voron), an index on <c>json_extract</c> of each queried
/// field, opened durably by <see cref="SqliteStore"/> (WAL, <c>synchronous=FULL</c>), prepared
/// statements, one transaction per write. SQLite has one writer at a time: writes share one
/// connection under a lock; each caller reads through a connection of its own.
/// </summary>
internal sealed class SqliteDocumentEngine : IDocumentEngine
{
    private const int BulkBatch = 10_000;
    private static readonly ProfileJson Json = ProfileJson.Default;

    private readonly SqliteStore _store;
    private readonly SqliteConnection _writer;
    private readonly SqliteCommand _insert;
    private readonly SqliteCommand _update;
    private readonly object _gate = new();

    public SqliteDocumentEngine(string directory)
    {
        _store = new SqliteStore(Path.Combine(directory, "docs.db"));
        _writer = _store.Connect();
        Execute(_writer, """
            CREATE TABLE IF NOT EXISTS docs(id TEXT PRIMARY KEY, version INTEGER NOT NULL, json TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS docs_city ON docs(json_extract(json, '$.city'));
            CREATE INDEX IF NOT EXISTS docs_age ON docs(json_extract(json, '$.age'));
            """);
        _insert = Prepare(_writer, "INSERT INTO docs(id, version, json) VALUES ($id, 1, $json)", ("$id", SqliteType.Text), ("$json", SqliteType.Text));
        _update = Prepare(_writer, "UPDATE docs SET json = $json, version = version + 1 WHERE id = $id AND version = $version",
            ("$id", SqliteType.Text), ("$json", SqliteType.Text), ("$version", SqliteType.Integer));
    }

    public string Name => DocumentEngineCatalog.Sqlite;

    public string Durability => _store.Durability;

    public bool UsesThreads => true;

    private static void Execute(SqliteConnection connection, string sql) => SqliteCommands.Execute(connection, sql);

    private static SqliteCommand Prepare(SqliteConnection connection, string sql, params (string Name, SqliteType Type)[] parameters) =>
        SqliteCommands.Prepare(connection, sql, parameters);

    public IDocumentCaller CreateCaller() => new Caller(this, _store.Connect());

    public Task<long> BulkInsertAsync(IEnumerable<Profile> profiles)
    {
        long count = 0;
        lock (_gate)
        {
            using var enumerator = profiles.GetEnumerator();
            var more = enumerator.MoveNext();
            while (more)
            {
                using var transaction = _writer.BeginTransaction();
                _insert.Transaction = transaction;
                for (var i = 0; i < BulkBatch && more; i++, more = enumerator.MoveNext())
                {
                    _insert.Parameters[0].Value = enumerator.Current.Id;
                    _insert.Parameters[1].Value = JsonSerializer.Serialize(enumerator.Current, Json.Profile);
                    _insert.ExecuteNonQuery();
                    count++;
                }

                transaction.Commit();
            }
        }

        return Task.FromResult(count);
    }

    public void EndRound()
    {
        // SQLite checkpoints the WAL inside commits (every 1,000 pages): already in the timed work.
    }

    public void Dispose()
    {
        _insert.Dispose();
        _update.Dispose();
        _writer.Dispose();
    }

    private sealed class Caller : IDocumentCaller
    {
        private readonly SqliteDocumentEngine _engine;
        private readonly SqliteConnection _reader;
        private readonly SqliteCommand _load;
        private readonly SqliteCommand _byCity;
        private readonly SqliteCommand _byAge;

        public Caller(SqliteDocumentEngine engine, SqliteConnection reader)
        {
            _engine = engine;
            _reader = reader;
            _load = Prepare(reader, "SELECT json, version FROM docs WHERE id = $id", ("$id", SqliteType.Text));
            _byCity = Prepare(reader, "SELECT json FROM docs WHERE json_extract(json, '$.city') = $city LIMIT $take", ("$city", SqliteType.Text), ("$take", SqliteType.Integer));
            _byAge = Prepare(reader, "SELECT json FROM docs WHERE json_extract(json, '$.age') >= $min AND json_extract(json, '$.age') < $max LIMIT $take",
                ("$min", SqliteType.Integer), ("$max", SqliteType.Integer), ("$take", SqliteType.Integer));
        }

        public ValueTask InsertAsync(Profile profile)
        {
            var json = JsonSerializer.Serialize(profile, Json.Profile);
            lock (_engine._gate)
            {
                using var transaction = _engine._writer.BeginTransaction();
                _engine._insert.Transaction = transaction;
                _engine._insert.Parameters[0].Value = profile.Id;
                _engine._insert.Parameters[1].Value = json;
                _engine._insert.ExecuteNonQuery();
                transaction.Commit();
            }

            return ValueTask.CompletedTask;
        }

        public ValueTask<Profile?> LoadAsync(string id) => ValueTask.FromResult(Load(id).Profile);

        private (Profile? Profile, long Version) Load(string id)
        {
            _load.Parameters[0].Value = id;
            using var reader = _load.ExecuteReader();
            return reader.Read() ? (JsonSerializer.Deserialize(reader.GetString(0), Json.Profile), reader.GetInt64(1)) : (null, 0);
        }

        public ValueTask<int> QueryEqualAsync(string city, int take)
        {
            _byCity.Parameters[0].Value = city;
            _byCity.Parameters[1].Value = take;
            return ValueTask.FromResult(ReadAll(_byCity));
        }

        public ValueTask<int> QueryRangeAsync(int minAge, int maxAge, int take)
        {
            _byAge.Parameters[0].Value = minAge;
            _byAge.Parameters[1].Value = maxAge;
            _byAge.Parameters[2].Value = take;
            return ValueTask.FromResult(ReadAll(_byAge));
        }

        private static int ReadAll(SqliteCommand command)
        {
            var results = new List<Profile>();
            using var reader = command.ExecuteReader();
            while (reader.Read())
            {
                results.Add(JsonSerializer.Deserialize(reader.GetString(0), Json.Profile)!);
            }

            return results.Count;
        }

        public ValueTask<bool> UpdateAsync(string id, int seed)
        {
            var (profile, version) = Load(id);
            ProfileDataSet.Change(profile ?? throw new InvalidOperationException($"'{id}' is missing"), seed);
            var json = JsonSerializer.Serialize(profile, Json.Profile);
            lock (_engine._gate)
            {
                using var transaction = _engine._writer.BeginTransaction();
                _engine._update.Transaction = transaction;
                _engine._update.Parameters[0].Value = id;
                _engine._update.Parameters[1].Value = json;
                _engine._update.Parameters[2].Value = version;
                var changed = _engine._update.ExecuteNonQuery();
                transaction.Commit();
                return ValueTask.FromResult(changed == 1);
            }
        }

        public void Dispose()
        {
            _load.Dispose();
            _byCity.Dispose();
            _byAge.Dispose();
            _reader.Dispose();
        }
    }
}
