using System.Text;
using Voron.Documents;
using Voron.SqliteVfs;
using Voron.Tests.Sql;

namespace Voron.Tests.Documents.Expiration;

/// <summary>
/// Expiration through the SQL <c>voron_docs</c> view: an INSERT of an expired, unswept id replaces
/// it (XE6), and a statement judges every row at one "now" (XE1).
/// </summary>
public sealed class ExpirationSqlTests
{
    private static readonly DateTimeOffset Start = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);

    [Theory]
    [InlineData("INSERT")]
    [InlineData("INSERT OR REPLACE")]
    public async Task An_insert_of_an_expired_unswept_id_replaces_it(string insert)
    {
        var clock = new ManualClock(Start);
        using var sql = new SqlStore();
        var store = DocumentStore.Open(sql.Environment, new DocumentStoreOptions { TimeProvider = clock, Expiration = { Enabled = false } });
        try
        {
            sql.Registration.UseDocuments(store);
            await store.EnsureIndexAsync(IndexDefinition.For(TestJson.Default.User, "users_by_age", u => u.Age));
            await using (var session = store.OpenSession())
            {
                session.StoreRaw("User", "users/1", """{"name":"old","age":1}"""u8, null, Start.AddMinutes(1));
                await session.SaveChangesAsync();
            }

            clock.Advance(TimeSpan.FromMinutes(1));
            using var connection = sql.Open("db", pooling: false);
            connection.Execute("CREATE VIRTUAL TABLE users USING voron_docs(User, age='$.age' INTEGER)");
            Assert.Empty(connection.Rows("SELECT id FROM users"));
            Assert.Equal(1, connection.Execute($$"""{{insert}} INTO users(id, body) VALUES ('users/1', '{"name":"new","age":2}')"""));

            Assert.Equal([["users/1", 2L]], connection.Rows("SELECT id, age FROM users"));
            await using (var session = store.OpenSession())
            {
                var user = await session.LoadAsync("users/1", TestJson.Default.User);
                Assert.Equal("new", user!.Name);
                Assert.Null(session.GetMetadata(user)!.Expires);
                Assert.Empty(await session.Query(TestJson.Default.User).Where(u => u.Age == 1).ToListAsync());
            }

            Assert.Equal(0, await store.SweepExpiredAsync());
            Assert.Equal(1, store.CheckIntegrity().Documents);
        }
        finally
        {
            await store.DisposeAsync();
        }
    }

    [Fact]
    public async Task A_statement_judges_every_row_at_one_now()
    {
        var clock = new SteppingClock(Start);
        using var sql = new SqlStore();
        var store = DocumentStore.Open(sql.Environment, new DocumentStoreOptions { TimeProvider = clock, Expiration = { Enabled = false } });
        try
        {
            sql.Registration.UseDocuments(store);
            var expires = Start.AddHours(1);
            await using (var session = store.OpenSession())
            {
                for (var i = 0; i < 20; i++)
                {
                    session.StoreRaw("User", $"users/{i:D2}", Encoding.UTF8.GetBytes($$"""{"age":{{i}}}"""), null, expires);
                }

                await session.SaveChangesAsync();
            }

            using var connection = sql.Open("db", pooling: false);
            connection.Execute("CREATE VIRTUAL TABLE users USING voron_docs(User, age='$.age' INTEGER)");
            clock.Set(expires.AddTicks(-5)); // every reading of "now" moves it one tick: the expiry comes mid-scan
            var rows = connection.Rows("SELECT id FROM users").Count;
            Assert.True(rows is 0 or 20, $"one statement saw {rows} of 20 documents that expire at the same instant");
        }
        finally
        {
            await store.DisposeAsync();
        }
    }

    /// <summary>A clock that moves one tick every time it is read.</summary>
    private sealed class SteppingClock(DateTimeOffset start) : TimeProvider
    {
        private long _ticks = start.UtcTicks;

        public void Set(DateTimeOffset now) => Interlocked.Exchange(ref _ticks, now.UtcTicks);

        public override DateTimeOffset GetUtcNow() => new(Interlocked.Increment(ref _ticks) - 1, TimeSpan.Zero);
    }
}
