using Voron.Documents;

namespace Voron.Tests.Documents.Readme;

/// <summary>The README's Voron.Documents quick start, kept compiling and passing (over an in-memory store instead of a directory).</summary>
public sealed class ReadmeDocumentsExampleTests
{
    [Fact]
    public async Task Quick_start_from_the_readme_runs_as_written()
    {
        var cancellationToken = CancellationToken.None;
        await using var store = DocumentStore.Open(new DocumentStoreOptions { InMemory = true });

        await store.EnsureIndexAsync(IndexDefinition.For(AppJson.Default.User, "users_by_email", u => u.Email).AsUnique());
        await store.EnsureIndexAsync(IndexDefinition.For(AppJson.Default.User, "users_by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(AppJson.Default.User, "users_by_tag", u => u.Tags));

        await using (var session = store.OpenSession())
        {
            session.Store(new User { Name = "Ada", Email = "ada@example.com", Age = 36, Tags = ["math"] }, AppJson.Default.User);
            await session.SaveChangesAsync(cancellationToken);
        }

        await using (var session = store.OpenSession())
        {
            var ada = await session.LoadAsync("User/1", AppJson.Default.User, cancellationToken);
            ada!.Age++;
            var version = session.GetMetadata(ada)!.Version;
            Assert.Equal(1, version);

            var adults = await session.Query(AppJson.Default.User)
                .Where(u => u.Age >= 18 && u.Age < 65).OrderBy(u => u.Age).Take(20).ToListAsync(cancellationToken);
            var mathematicians = await session.Query(AppJson.Default.User).CountAsync(u => u.Tags.Contains("math"), cancellationToken);
            Assert.Same(ada, Assert.Single(adults));
            Assert.Equal(1, mathematicians);

            await session.SaveChangesAsync(cancellationToken);
        }

        var conflicts = 0;
        await using (var session = store.OpenSession())
        {
            session.Store(new User { Name = "Ada L.", Email = "ada@example.com", Age = 37 }, AppJson.Default.User, "User/1", expectedVersion: 1);
            try
            {
                await session.SaveChangesAsync(cancellationToken);
            }
            catch (ConcurrencyException e)
            {
                Assert.Equal(("User/1", 1L, 2L), (e.Id, e.ExpectedVersion, e.ActualVersion));
                conflicts++;
            }
        }

        Assert.Equal(1, conflicts);

        await store.EnsureIndexAsync(new IndexDefinition("events", "events_by_kind_at", "kind", "at"));
        await using (var session = store.OpenSession())
        {
            session.StoreRaw("events", "events/1", """{"kind":"click","at":1700000000,"labels":["a","b"]}"""u8);
            await session.SaveChangesAsync(cancellationToken);
            await session.LoadRawAsync("events/1", Stream.Null, cancellationToken);
            var clicks = await session.QueryRaw("events").Where("kind", QueryOperator.Equal, "click").Take(20).ToListAsync(cancellationToken);
            Assert.Equal("events/1", Assert.Single(clicks).Id);
            clicks.ForEach(c => c.Dispose());
        }

        await store.BulkInsertAsync(Enumerable.Range(0, 10_000).Select(i => new User { Name = $"u{i}", Email = $"u{i}@example.com", Age = i % 90 }),
            AppJson.Default.User, progress: null, cancellationToken);
        Assert.Equal(10_002, store.CheckIntegrity().Documents);
    }
}
