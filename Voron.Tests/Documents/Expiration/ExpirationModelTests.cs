using System.Text;
using Voron.Documents;
using Voron.SqliteVfs;
using Voron.Tests.Sql;
using Voron.Tests.Sql.Documents;
using Xunit.Abstractions;

namespace Voron.Tests.Documents.Expiration;

/// <summary>
/// Model-based test of expiration: random raw and typed stores with and without an expiry,
/// SetExpiration changes, edits that keep the expiry, deletes, and a fake clock moved at random,
/// against a model. After every step, loads (one and many, typed and raw), typed queries (equality,
/// and a range with order and Take), a raw scan, the SQL voron_docs view and an export return
/// exactly the model's unexpired documents; now and then a sweep deletes exactly the expired ones
/// and the integrity check (L4 included) passes.
/// </summary>
public sealed class ExpirationModelTests(ITestOutputHelper output)
{
    private static readonly TestJson Json = TestJson.Default;

    private sealed record Doc(int Age, long Expires); // Expires: UTC ticks, 0 = none

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Reads_hide_exactly_the_expired_documents_and_a_sweep_deletes_exactly_them(int seed)
    {
        var random = new Random(seed);
        var clock = new ManualClock(new DateTimeOffset(2026, 1, 1, 0, 0, 0, TimeSpan.Zero));
        using var sql = new SqlStore();
        var store = DocumentStore.Open(sql.Environment, new DocumentStoreOptions { TimeProvider = clock, Expiration = { Enabled = false } });
        try
        {
            sql.Registration.UseDocuments(store);
            await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
            using var connection = sql.Open("db", pooling: false);
            connection.Execute("CREATE VIRTUAL TABLE users USING voron_docs(User, age='$.age' INTEGER)");
            var model = new Dictionary<string, Doc>(StringComparer.Ordinal);
            var stats = new Dictionary<string, int>(StringComparer.Ordinal);
            for (var step = 0; step < 250; step++)
            {
                var context = $"seed {seed}, step {step}";
                var op = await StepAsync(store, clock, model, random);
                stats[op] = stats.GetValueOrDefault(op) + 1;
                await VerifyAsync(store, connection, clock, model, random, context);
                if (random.Next(20) == 0)
                {
                    var now = clock.Now.UtcTicks;
                    var expired = model.Where(d => d.Value.Expires != 0 && d.Value.Expires <= now).Select(d => d.Key).ToList();
                    Assert.Equal(expired.Count, await store.SweepExpiredAsync());
                    expired.ForEach(id => model.Remove(id));
                    var report = store.CheckIntegrity();
                    Assert.Equal(model.Count, report.Documents);
                    stats["sweep"] = stats.GetValueOrDefault("sweep") + 1;
                }
            }

            output.WriteLine($"seed {seed}: {model.Count} documents at the end; " + string.Join(", ", stats.OrderBy(s => s.Key, StringComparer.Ordinal).Select(s => $"{s.Key} {s.Value}")));
            Assert.True(stats.GetValueOrDefault("set expiration") > 10 && stats.GetValueOrDefault("sweep") > 3, $"seed {seed}: the run should set expirations and sweep");
        }
        finally
        {
            sql.Registration.Dispose();
            store.Dispose();
        }
    }

    private static async Task<string> StepAsync(DocumentStore store, ManualClock clock, Dictionary<string, Doc> model, Random random)
    {
        var id = $"users/{random.Next(40)}";
        var now = clock.Now.UtcTicks;
        long RandomExpiry() => random.Next(3) == 0 ? 0 : now + TimeSpan.FromMinutes(random.Next(-10, 60)).Ticks;
        await using var session = store.OpenSession();
        switch (random.Next(7))
        {
            case 0:
            {
                var age = random.Next(10);
                var expires = RandomExpiry();
                session.StoreRaw("User", id, Encoding.UTF8.GetBytes($$"""{"name":"n{{age}}","age":{{age}}}"""), null, expires == 0 ? null : new DateTimeOffset(expires, TimeSpan.Zero));
                await session.SaveChangesAsync();
                model[id] = new Doc(age, expires);
                return "store raw";
            }

            case 1:
            {
                var user = DocumentTestStore.NewUser("typed", random.Next(10));
                session.Store(user, Json.User, id);
                var expires = RandomExpiry();
                if (expires != 0)
                {
                    session.SetExpiration(user, new DateTimeOffset(expires, TimeSpan.Zero));
                }

                await session.SaveChangesAsync();
                model[id] = new Doc(user.Age, expires); // Store of an object not loaded replaces the document, expiry included
                return "store typed";
            }

            case 2:
            case 3:
            {
                var user = await session.LoadAsync(id, Json.User);
                if (user == null)
                {
                    return "set expiration of absent";
                }

                var expires = RandomExpiry();
                session.SetExpiration(user, expires == 0 ? null : new DateTimeOffset(expires, TimeSpan.Zero));
                Assert.Equal(expires == 0 ? null : new DateTimeOffset(expires, TimeSpan.Zero), session.GetMetadata(user)!.Expires);
                await session.SaveChangesAsync();
                model[id] = model[id] with { Expires = expires };
                return "set expiration";
            }

            case 4:
            {
                var user = await session.LoadAsync(id, Json.User);
                if (user == null)
                {
                    return "edit absent";
                }

                user.Age = random.Next(10);
                await session.SaveChangesAsync();
                model[id] = model[id] with { Age = user.Age }; // XE4: the loaded expiry is kept
                return "edit keeps expiry";
            }

            case 5:
                session.Delete(id);
                await session.SaveChangesAsync();
                model.Remove(id);
                return "delete";
            default:
                clock.Advance(TimeSpan.FromMinutes(random.Next(0, 12)));
                return "advance clock";
        }
    }

    private static async Task VerifyAsync(DocumentStore store, Microsoft.Data.Sqlite.SqliteConnection connection, ManualClock clock, Dictionary<string, Doc> model, Random random, string context)
    {
        var now = clock.Now.UtcTicks;
        var visible = model.Where(d => d.Value.Expires == 0 || d.Value.Expires > now).ToDictionary(d => d.Key, d => d.Value, StringComparer.Ordinal);
        var expected = visible.Keys.Order(StringComparer.Ordinal).ToList();
        await using var session = store.OpenSession();

        var ids = Enumerable.Range(0, 40).Select(i => $"users/{i}").ToList();
        var loaded = await session.LoadAsync(ids, Json.User);
        Assert.True(expected.SequenceEqual(loaded.Where(l => l.Value != null).Select(l => l.Key).Order(StringComparer.Ordinal)), $"{context}: loads");
        foreach (var (id, user) in loaded)
        {
            if (user != null)
            {
                Assert.True(visible[id].Age == user.Age, $"{context}: age of {id}");
                var expires = session.GetMetadata(user)!.Expires;
                Assert.True((visible[id].Expires == 0 ? null : new DateTimeOffset(visible[id].Expires, TimeSpan.Zero)) == expires, $"{context}: expiry of {id}");
            }
        }

        await using (var raw = store.OpenSession())
        {
            var one = $"users/{random.Next(40)}";
            using var document = await raw.LoadRawAsync(one);
            Assert.True(visible.ContainsKey(one) == (document != null), $"{context}: raw load of {one}");
        }

        await using (var query = store.OpenSession())
        {
            var age = random.Next(10);
            var equal = await query.Query(Json.User).Where(u => u.Age == age).ToListAsync();
            Assert.True(visible.Where(v => v.Value.Age == age).Select(v => v.Key).Order(StringComparer.Ordinal).SequenceEqual(equal.Select(u => u.Id!).Order(StringComparer.Ordinal)), $"{context}: age == {age}");

            var from = random.Next(10);
            var take = random.Next(1, 8);
            var range = await query.Query(Json.User).Where(u => u.Age >= from).OrderBy(u => u.Age).Take(take).ToListAsync();
            var expectedRange = visible.Where(v => v.Value.Age >= from).OrderBy(v => v.Value.Age).ThenBy(v => v.Key, StringComparer.Ordinal).Take(take).Select(v => v.Key).ToList();
            Assert.True(expectedRange.SequenceEqual(range.Select(u => u.Id!)), $"{context}: age >= {from} take {take}: [{string.Join(",", range.Select(u => u.Id))}] != [{string.Join(",", expectedRange)}]");
            Assert.True(visible.Count == await query.QueryRaw("User").AllowScan().CountAsync(), $"{context}: raw scan count");
            Assert.True(visible.Count(v => v.Value.Age >= from) == await query.Query(Json.User).CountAsync(u => u.Age >= from), $"{context}: count age >= {from}");
        }

        var rows = connection.Query("SELECT id FROM users ORDER BY id").Select(r => (string)r[0]!).ToList();
        Assert.True(expected.SequenceEqual(rows, StringComparer.Ordinal), $"{context}: SQL view [{string.Join(",", rows)}] != [{string.Join(",", expected)}]");

        using var export = new MemoryStream();
        var exported = await store.ExportAsync(export);
        Assert.True(visible.Count == exported.Documents, $"{context}: export");
    }
}
