namespace Voron.Tests.Documents;

public sealed class IndexQueryTests
{
    private static readonly TestJson Json = TestJson.Default;

    private static async Task<DocumentStore> StoreWithUsersAsync(int count = 50)
    {
        var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_email", u => u.Email).AsUnique());
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_tags", u => u.Tags));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_city_age", u => u.Address!.City, u => u.Age));
        await using var session = store.OpenSession();
        for (var i = 0; i < count; i++)
        {
            var user = DocumentTestStore.NewUser($"user{i:D3}", i % 40, $"u{i}@example.com", $"t{i % 3}", $"g{i % 5}");
            user.Address = new Address { City = i % 2 == 0 ? "Oslo" : "Lima", Country = "X" };
            session.Store(user, Json.User, $"users/{i:D3}");
        }

        await session.SaveChangesAsync();
        return store;
    }

    [Fact]
    public async Task Equality_query_on_an_indexed_member_returns_the_matching_documents()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        var query = session.Query(Json.User).Where(u => u.Email == "u7@example.com");
        Assert.Contains("users_by_email", query.Explain(), StringComparison.Ordinal);
        var found = await query.SingleAsync();
        Assert.Equal("users/007", found.Id);
        Assert.Same(found, await session.LoadAsync("users/007", Json.User)); // results join the identity map
    }

    [Fact]
    public async Task Range_query_with_order_and_take_reads_the_index_in_order()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        var ages = 30;
        var found = await session.Query(Json.User).Where(u => u.Age >= ages && u.Age < 35).OrderBy(u => u.Age).Take(4).ToListAsync();
        Assert.Equal([30, 31, 32, 33], found.Select(u => u.Age));
        var descending = await session.Query(Json.User).Where(u => u.Age > 36).OrderByDescending(u => u.Age).ToListAsync();
        Assert.Equal([39, 38, 37], descending.Select(u => u.Age).Distinct());
        Assert.Equal(3, await session.Query(Json.User).CountAsync(u => u.Age > 36));
    }

    [Fact]
    public async Task Contains_on_a_collection_member_uses_the_multikey_index()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        var query = session.Query(Json.User).Where(u => u.Tags.Contains("g3"));
        Assert.Contains("users_by_tags", query.Explain(), StringComparison.Ordinal);
        var found = await query.ToListAsync();
        Assert.Equal(10, found.Count);
        Assert.All(found, u => Assert.Contains("g3", u.Tags));
        // two elements of the same array: both must be present, not necessarily in one element
        var both = await session.Query(Json.User).Where(u => u.Tags.Contains("g3") && u.Tags.Contains("t0")).ToListAsync();
        Assert.All(both, u => Assert.True(u.Tags.Contains("g3") && u.Tags.Contains("t0")));
        Assert.Equal(Enumerable.Range(0, 50).Count(i => i % 5 == 3 && i % 3 == 0), both.Count);
    }

    [Fact]
    public async Task Compound_index_serves_equality_then_range_then_order()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        var query = session.Query(Json.User).Where(u => u.Address!.City == "Oslo" && u.Age > 30).OrderBy(u => u.Age);
        Assert.Contains("users_by_city_age", query.Explain(), StringComparison.Ordinal);
        var found = await query.ToListAsync();
        Assert.NotEmpty(found);
        Assert.All(found, u => Assert.True(u.Address!.City == "Oslo" && u.Age > 30));
        Assert.Equal(found.Select(u => u.Age).Order(), found.Select(u => u.Age));
    }

    [Fact]
    public async Task StartsWith_and_id_prefix_queries()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        Assert.Equal(10, await session.Query(Json.User).WhereIdStartsWith("users/01").CountAsync());
        Assert.Equal(10, await session.Query(Json.User).Where(u => u.Id!.StartsWith("users/02")).CountAsync());
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_name", u => u.Name));
        var names = await session.Query(Json.User).Where(u => u.Name.StartsWith("user04")).OrderBy(u => u.Name).ToListAsync();
        Assert.Equal(["user040", "user041", "user042", "user043", "user044", "user045", "user046", "user047", "user048", "user049"], names.Select(u => u.Name));
    }

    [Fact]
    public async Task A_query_no_index_serves_throws_NotSupportedException_naming_the_index_that_would()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        var error = await Assert.ThrowsAsync<NotSupportedException>(() => session.Query(Json.User).Where(u => u.Name == "user001").ToListAsync());
        Assert.Contains("\"name\"", error.Message, StringComparison.Ordinal);
        Assert.Contains("User_by_name", error.Message, StringComparison.Ordinal);
        Assert.Contains("AllowScan", error.Message, StringComparison.Ordinal);
        var scanned = await session.Query(Json.User).Where(u => u.Name == "user001").AllowScan().SingleAsync();
        Assert.Equal("users/001", scanned.Id);
    }

    [Fact]
    public async Task Unique_index_violation_throws_naming_index_and_value_and_saves_nothing()
    {
        await using var store = await StoreWithUsersAsync();
        await using (var session = store.OpenSession())
        {
            session.Store(DocumentTestStore.NewUser("fresh", 1, "fresh@example.com"), Json.User, "users/fresh");
            session.Store(DocumentTestStore.NewUser("dup", 1, "u3@example.com"), Json.User, "users/dup");
            var error = await Assert.ThrowsAsync<UniqueConstraintException>(() => session.SaveChangesAsync());
            Assert.Equal("users_by_email", error.Index);
            Assert.Equal("\"u3@example.com\"", error.Value);
            Assert.Equal("users/003", error.ExistingId);
        }

        await using (var session = store.OpenSession())
        {
            Assert.Null(await session.LoadAsync("users/fresh", Json.User));
            Assert.Equal(0, await session.Query(Json.User).CountAsync(u => u.Email == "fresh@example.com"));
        }

        store.CheckIntegrity();
    }

    [Fact]
    public async Task Documents_of_one_session_may_swap_unique_values()
    {
        await using var store = await StoreWithUsersAsync();
        await using (var session = store.OpenSession())
        {
            var a = (await session.LoadAsync("users/001", Json.User))!;
            var b = (await session.LoadAsync("users/002", Json.User))!;
            (a.Email, b.Email) = (b.Email, a.Email);
            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            Assert.Equal("users/002", (await session.Query(Json.User).SingleAsync(u => u.Email == "u1@example.com")).Id);
        }

        store.CheckIntegrity();
    }

    [Fact]
    public async Task A_query_after_SaveChanges_sees_the_change()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        var user = (await session.LoadAsync("users/005", Json.User))!;
        user.Email = "changed@example.com";
        await session.SaveChangesAsync();
        await using var other = store.OpenSession();
        Assert.Equal("users/005", (await other.Query(Json.User).SingleAsync(u => u.Email == "changed@example.com")).Id);
        Assert.False(await other.Query(Json.User).AnyAsync(u => u.Email == "u5@example.com"));
    }

    [Fact]
    public async Task Defining_an_index_over_existing_documents_builds_it_with_progress()
    {
        await using var store = await StoreWithUsersAsync(120);
        var reports = new List<IndexBuildProgress>();
        var progress = new SynchronousProgress<IndexBuildProgress>(reports.Add);
        var built = await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_active", u => u.Active), progress);
        Assert.True(built);
        Assert.Equal(120, reports[^1].Processed);
        Assert.Equal(120, reports[^1].Total);
        Assert.False(await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_active", u => u.Active)));
        await using var session = store.OpenSession();
        Assert.Equal(60, await session.Query(Json.User).CountAsync(u => u.Active));
        Assert.Equal(60, await session.Query(Json.User).CountAsync(u => !u.Active));
        store.CheckIntegrity();
    }

    [Fact]
    public async Task Changing_a_definition_rebuilds_the_index()
    {
        await using var store = await StoreWithUsersAsync();
        Assert.True(await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age, u => u.Name)));
        Assert.Equal(["age", "name"], store.GetIndexes("User").Single(i => i.Definition.Name == "users_by_age").Definition.Paths);
        await using var session = store.OpenSession();
        var found = await session.Query(Json.User).Where(u => u.Age == 10).OrderBy(u => u.Name).ToListAsync();
        Assert.Equal(["user010"], found.Select(u => u.Name));
        store.CheckIntegrity();
    }

    [Fact]
    public async Task A_unique_index_over_existing_duplicates_fails_and_is_dropped()
    {
        await using var store = await StoreWithUsersAsync();
        var error = await Assert.ThrowsAsync<UniqueConstraintException>(() => store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age_unique", u => u.Age).AsUnique()));
        Assert.Equal("users_by_age_unique", error.Index);
        Assert.DoesNotContain(store.GetIndexes(), i => i.Definition.Name == "users_by_age_unique");
        store.CheckIntegrity();
    }

    [Fact]
    public async Task Streaming_results_through_IAsyncEnumerable_reads_one_snapshot()
    {
        await using var store = await StoreWithUsersAsync();
        await using var session = store.OpenSession();
        await using var writer = store.OpenSession();
        var seen = 0;
        await foreach (var user in session.Query(Json.User).Where(u => u.Age < 10).OrderBy(u => u.Age))
        {
            if (seen++ == 0)
            {
                writer.Store(DocumentTestStore.NewUser("late", 0), Json.User, "users/late");
                await writer.SaveChangesAsync(); // committed mid-query: the query's snapshot does not see it
            }
        }

        Assert.Equal(Enumerable.Range(0, 50).Count(i => i % 40 < 10), seen);
        Assert.Equal(seen + 1, await session.Query(Json.User).CountAsync(u => u.Age < 10));
    }

    [Fact]
    public async Task Raw_documents_are_indexed_by_json_path_and_queried_raw()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(new IndexDefinition("events", "events_by_kind_at", "kind", "at"));
        await store.EnsureIndexAsync(new IndexDefinition("events", "events_by_label", "labels[]"));
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 20; i++)
            {
                session.StoreRaw("events", $"e/{i:D2}", System.Text.Encoding.UTF8.GetBytes($$"""{"kind":"{{(i % 2 == 0 ? "click" : "view")}}","at":{{i * 10}},"labels":["l{{i % 4}}"]}"""));
            }

            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var clicks = await session.QueryRaw("events").Where("kind", QueryOperator.Equal, "click").Where("at", QueryOperator.GreaterThanOrEqual, 100L).ToListAsync();
            try
            {
                Assert.Equal(["e/10", "e/12", "e/14", "e/16", "e/18"], clicks.Select(c => c.Id));
                Assert.StartsWith("{\"kind\":\"click\"", System.Text.Encoding.UTF8.GetString(clicks[0].Json.Span), StringComparison.Ordinal);
            }
            finally
            {
                clicks.ForEach(c => c.Dispose());
            }

            Assert.Equal(5, await session.QueryRaw("events").Where("labels[]", QueryOperator.Equal, "l1").CountAsync());
            Assert.Throws<NotSupportedException>(() => session.QueryRaw("events").Where("missing", QueryOperator.Equal, 1L).Explain());
        }

        store.CheckIntegrity();
    }

    [Fact]
    public async Task Numbers_compare_numerically_across_integers_and_floating_point()
    {
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(new IndexDefinition("n", "n_by_v", "v"));
        var values = new[] { "-1e300", "-9007199254740993", "-2.5", "-0", "0", "1", "1.5", "2", "9007199254740992", "9007199254740993", "18446744073709551615", "1e300", "\"a\"", "null", "true" };
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < values.Length; i++)
            {
                session.StoreRaw("n", $"n/{i:D2}", System.Text.Encoding.UTF8.GetBytes($$"""{"v":{{values[i]}}}"""));
            }

            await session.SaveChangesAsync();
        }

        await using (var session = store.OpenSession())
        {
            var numbers = await session.QueryRaw("n").Where("v", QueryOperator.GreaterThan, -1e301).OrderBy("v").ToListAsync();
            Assert.Equal(["n/00", "n/01", "n/02", "n/03", "n/04", "n/05", "n/06", "n/07", "n/08", "n/09", "n/10", "n/11"], numbers.Select(n => n.Id).Take(3).Concat(numbers.Select(n => n.Id).Skip(3).Take(2).Order(StringComparer.Ordinal)).Concat(numbers.Select(n => n.Id).Skip(5)));
            numbers.ForEach(n => n.Dispose());
            Assert.Equal(2, await session.QueryRaw("n").Where("v", QueryOperator.Equal, 0L).CountAsync()); // -0 and 0
            Assert.Equal(1, await session.QueryRaw("n").Where("v", QueryOperator.Equal, 9007199254740993L).CountAsync());
        }
    }

    private sealed class SynchronousProgress<T>(Action<T> report) : IProgress<T>
    {
        public void Report(T value) => report(value);
    }
}
