namespace Voron.Tests.Documents.Properties;

/// <summary>
/// BulkInsertAsync against a model of its documented semantics (BI1, BI2, BI3): random mixes of
/// new ids, generated ids, ids stored before, duplicates within a batch and unique-index clashes,
/// in batches of random sizes. The model replays the input one batch at a time in input order (a
/// repeated id keeps its first place and its last value; replaced documents drop their old entries
/// first, then each document's unique values are checked in input order): the store must hold
/// exactly the model's documents, with indexes equal to a rebuild (CheckIntegrity), report the
/// model's committed counts as progress, and fail (when it fails) naming the model's document.
/// </summary>
public sealed class BulkInsertModelTests
{
    private static readonly TestJson Json = TestJson.Default;

    public static TheoryData<int> Seeds()
    {
        var seeds = new TheoryData<int>();
        for (var seed = 1; seed <= 60; seed++)
        {
            seeds.Add(seed);
        }

        return seeds;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task Bulk_insert_matches_the_model(int seed)
    {
        var random = new Random(seed);
        var batchSize = random.Next(1, 40);
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = batchSize);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_email", u => u.Email).AsUnique());
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_tags", u => u.Tags));

        var emails = random.Next(5, 400); // few values: clashes are likely; many: rare
        var model = new Dictionary<string, User>(StringComparer.Ordinal);
        await using (var session = store.OpenSession())
        {
            var stored = random.Next(0, 30);
            for (var i = 0; i < stored; i++)
            {
                var user = Random(random, $"users/{random.Next(0, 60)}", emails);
                if (model.ContainsKey(user.Id!) || model.Values.Any(u => u.Email != null && u.Email == user.Email))
                {
                    continue;
                }

                session.Store(user, Json.User);
                model[user.Id!] = Copy(user);
            }

            await session.SaveChangesAsync();
        }

        var input = new List<User>();
        var count = random.Next(1, 250);
        for (var i = 0; i < count; i++)
        {
            input.Add(Random(random, random.Next(5) == 0 ? null : $"users/{random.Next(0, 90)}", emails));
        }

        var reports = new List<long>();
        Exception? failure = null;
        try
        {
            await store.BulkInsertAsync(input, Json.User, new Reports(reports));
        }
        catch (UniqueConstraintException e)
        {
            failure = e;
        }

        var (expectedReports, expectedFailure) = Replay(model, input, batchSize);
        Assert.Equal(expectedFailure, (failure as UniqueConstraintException)?.Id);
        if (failure == null)
        {
            Assert.Equal(expectedReports, reports);
        }

        await using (var session = store.OpenSession())
        {
            var stored = await session.Query(Json.User).ToListAsync();
            Assert.Equal(model.Keys.Order(StringComparer.Ordinal), stored.Select(u => u.Id!).Order(StringComparer.Ordinal));
            foreach (var user in stored)
            {
                var expected = model[user.Id!];
                Assert.Equal((expected.Name, expected.Email, expected.Age, string.Join(",", expected.Tags)), (user.Name, user.Email, user.Age, string.Join(",", user.Tags)));
            }

            foreach (var age in Enumerable.Range(0, 8))
            {
                Assert.Equal(model.Values.Count(u => u.Age == age), await session.Query(Json.User).CountAsync(u => u.Age == age));
            }
        }

        var report = store.CheckIntegrity(); // indexes equal to a rebuild
        Assert.Equal(model.Count, report.Documents);
    }

    [Fact]
    public async Task A_failing_input_keeps_every_full_batch_read_before_it()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 10);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        static IEnumerable<User> Input()
        {
            for (var i = 0; i < 55; i++)
            {
                yield return DocumentTestStore.NewUser($"u{i}", i % 7);
            }

            throw new InvalidDataException("the source broke");
        }

        await Assert.ThrowsAsync<InvalidDataException>(() => store.BulkInsertAsync(Input(), Json.User));
        Assert.Equal(50, store.CheckIntegrity().Documents);
    }

    /// <summary>BI3: a batch that failed before the input broke is the failure reported (it comes first in input order).</summary>
    [Fact]
    public async Task A_batch_failure_before_the_input_broke_is_the_one_reported()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 10);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_email", u => u.Email).AsUnique());
        var users = Enumerable.Range(0, 25).Select(i => DocumentTestStore.NewUser($"u{i}", 1, i is 3 or 4 ? "dup@x" : $"{i}@x")).ToList();
        IEnumerable<User> Input()
        {
            foreach (var user in users)
            {
                yield return user;
            }

            throw new InvalidDataException("the source broke"); // while the first two batches are still pending
        }

        var error = await Assert.ThrowsAsync<UniqueConstraintException>(() => store.BulkInsertAsync(Input(), Json.User));
        Assert.Equal(users[4].Id, error.Id);
        Assert.Equal(0, store.CheckIntegrity().Documents);
    }

    [Fact]
    public async Task A_batch_after_a_failed_one_is_not_applied()
    {
        await using var store = DocumentTestStore.InMemory(o => o.BulkInsertBatchSize = 10);
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_email", u => u.Email).AsUnique());
        var users = Enumerable.Range(0, 60).Select(i => DocumentTestStore.NewUser($"u{i}", 1, i is 13 or 17 ? "dup@x" : $"{i}@x")).ToList();
        var reports = new List<long>();
        var error = await Assert.ThrowsAsync<UniqueConstraintException>(() => store.BulkInsertAsync(users, Json.User, new Reports(reports)));
        Assert.Equal(users[17].Id, error.Id);
        Assert.Equal(10, store.CheckIntegrity().Documents);
        Assert.Equal(new long[] { 10 }, reports);
    }

    /// <summary>Replays <paramref name="input"/> on <paramref name="model"/>: the progress reports of a success and the id a unique failure names (null: none).</summary>
    private static (List<long> Reports, string? Failure) Replay(Dictionary<string, User> model, List<User> input, int batchSize)
    {
        var reports = new List<long>();
        long written = 0;
        var batch = new List<User>();
        var positions = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var i = 0; i <= input.Count; i++)
        {
            if (i < input.Count)
            {
                var user = input[i];
                Assert.NotNull(user.Id); // read (a generated id set) unless after the failure, where the replay stops first
                if (positions.TryGetValue(user.Id!, out var position))
                {
                    batch[position] = user;
                }
                else
                {
                    positions[user.Id!] = batch.Count;
                    batch.Add(user);
                }
            }

            if (batch.Count >= batchSize || (i == input.Count && batch.Count > 0))
            {
                if (ApplyBatch(model, batch) is { } failure)
                {
                    return (reports, failure);
                }

                written += batch.Count;
                reports.Add(written);
                batch.Clear();
                positions.Clear();
            }
        }

        return (reports, null);
    }

    private static string? ApplyBatch(Dictionary<string, User> model, List<User> batch)
    {
        var owners = new Dictionary<string, string>(StringComparer.Ordinal); // email -> id, after phase 1
        foreach (var (id, user) in model)
        {
            var replaced = batch.FirstOrDefault(b => b.Id == id);
            if (user.Email != null && (replaced == null || replaced.Email == user.Email))
            {
                owners[user.Email] = id;
            }
        }

        foreach (var user in batch)
        {
            if (user.Email == null || (owners.TryGetValue(user.Email, out var owner) && owner == user.Id))
            {
                continue;
            }

            if (owners.ContainsKey(user.Email))
            {
                return user.Id;
            }

            owners[user.Email] = user.Id!;
        }

        foreach (var user in batch)
        {
            model[user.Id!] = Copy(user);
        }

        return null;
    }

    private static User Random(Random random, string? id, int emails)
    {
        var user = DocumentTestStore.NewUser($"n{random.Next(1000)}", random.Next(0, 8), random.Next(4) == 0 ? null : $"e{random.Next(emails)}@x",
            [.. Enumerable.Range(0, random.Next(0, 3)).Select(_ => $"t{random.Next(5)}").Distinct()]);
        user.Id = id;
        return user;
    }

    private static User Copy(User user)
    {
        var copy = DocumentTestStore.NewUser(user.Name, user.Age, user.Email, [.. user.Tags]);
        copy.Id = user.Id;
        return copy;
    }

    private sealed class Reports(List<long> reports) : IProgress<long>
    {
        public void Report(long value) => reports.Add(value); // IProgress<T> is called inline here: a plain class, not Progress<T>
    }
}
