using System.Linq.Expressions;
using Voron.Documents.Querying;

namespace Voron.Tests.Documents;

/// <summary>
/// The translation cache (QC1, QC2 in Querying/TranslationCache.cs) against the translator it
/// caches: for random shapes and values, the cached translation gives the conditions (or the
/// error) a fresh translation gives; queries through it return what the data says.
/// </summary>
public sealed class QueryTranslationCacheTests
{
    private static readonly TestJson Json = TestJson.Default;

    private static readonly string?[] Strings = [null, "", "a", "ab", "user007", "Oslo", "t1", "é€", "zz"];

    private static string? AnyString(Random random) => Strings[random.Next(Strings.Length)];

    /// <summary>Predicates of many shapes; each call builds a new tree (new closures), the same shape for the same index.</summary>
    private static Expression<Func<User, bool>> Predicate(int shape, Random random)
    {
        var a = random.Next(-5, 60);
        var b = a + random.Next(0, 10);
        var s = AnyString(random);
        var l = (long)random.Next(-5, 60);
        var d = random.Next(4) == 0 ? double.NaN : random.Next(-50, 600) / 10.0;
        var flag = random.Next(2) == 0;
        var zero = random.Next(3) == 0 ? 1 : 0; // CompareOrdinal(...) > 1 is refused: a guard
        var comparison = random.Next(3) == 0 ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal;
        var status = (Status)random.Next(0, 3);
        var holder = new { Age = a, Name = s };
        return shape switch
        {
            0 => u => u.Age >= a && u.Age < b,
            1 => u => u.Name == s,
            2 => u => u.Email == s,
            3 => u => u.Name.StartsWith(s!),
            4 => u => u.Tags.Contains(s!),
            5 => u => u.Age > l,
            6 => u => u.Age >= d,
            7 => u => string.CompareOrdinal(u.Name, s) > zero,
            8 => u => u.Active == flag && u.Age <= a,
            9 => u => u.Id == s,
            10 => u => u.Status == status,
            11 => u => u.Status > status,
            12 => u => u.Address!.City == s && u.Age == b,
            13 => u => !u.Active && a <= u.Age,
            14 => u => u.Age == 30 && u.Name != "x",
            15 => u => u.Name.StartsWith(s!, comparison),
            16 => u => u.Age >= holder.Age && u.Name == holder.Name,
            17 => u => u.Email! == null || u.Age == a,
            18 => u => u.Email!.CompareTo(s) > 0,
            19 => u => u.Age < -a && u.Active,
            20 => u => true,
            _ => u => flag,
        };
    }

    private const int Shapes = 22;

    private static string Describe(QueryCondition c) =>
        $"{c.Path?.Text}|{c.Kind}|{Convert.ToHexString(c.Value)}|{c.Display}|{c.Numeric != null}|{(c.NumericLower == null ? "-" : Convert.ToHexString(c.NumericLower))}|{(c.NumericUpper == null ? "-" : Convert.ToHexString(c.NumericUpper))}";

    private static string Outcome(Func<List<QueryCondition>> translate)
    {
        try
        {
            return string.Join(" && ", translate().Select(Describe));
        }
        catch (Exception e)
        {
            return $"{e.GetType().Name}: {e.Message}";
        }
    }

    [Fact]
    public void Cached_translations_equal_fresh_ones_for_random_shapes_and_values()
    {
        TranslationCache.Clear();
        var random = new Random(2211);
        var replayed = 0;
        for (var i = 0; i < 4000; i++)
        {
            var shape = random.Next(Shapes);
            var predicate = Predicate(shape, random);
            var fresh = Outcome(() => ExpressionTranslator.Conditions(predicate, Json.User));
            var before = TranslationCache.Count;
            var cached = Outcome(() => TranslationCache.Conditions(predicate, Json.User));
            Assert.True(fresh == cached, $"shape {shape}, case {i}: fresh {fresh}, cached {cached}");
            replayed += TranslationCache.Count == before && before > 0 ? 1 : 0;
        }

        Assert.True(TranslationCache.Count > 5, "shapes that translate are cached");
        Assert.True(replayed > 2000, $"most calls replay a cached shape ({replayed})");
    }

    [Fact]
    public void A_shape_keeps_the_document_type_members_and_static_types_apart()
    {
        var age = 3;
        var other = 4;
        var id = "users/1";
        Expression<Func<User, bool>> byAge = u => u.Age == age;
        Expression<Func<User, bool>> byAgeAgain = u => u.Age == other;
        Expression<Func<User, bool>> bySum = u => u.Age == age + 0;
        Expression<Func<User, bool>> byLong = u => u.Age == (long)age;
        Expression<Func<User, bool>> byId = u => u.Id == id;
        Expression<Func<User, bool>> byName = u => u.Name == id;
        Assert.Equal(QueryShape.Of(byAge, Json.User), QueryShape.Of(byAgeAgain, Json.User)); // the value's part is a slot of the same type
        Assert.NotEqual(QueryShape.Of(byAge, Json.User), QueryShape.Of(bySum, Json.User)); // and the same node type
        Assert.NotEqual(QueryShape.Of(byAge, Json.User), QueryShape.Of(byLong, Json.User));
        Assert.NotEqual(QueryShape.Of(byId, Json.User), QueryShape.Of(byName, Json.User));
        Assert.NotEqual(QueryShape.Of(byAge, Json.User), QueryShape.Of(byAge, new TestJson(new System.Text.Json.JsonSerializerOptions()).User));
        Expression<Func<User, bool>> nested = u => u.Tags.Any(t => t == u.Name); // a nested lambda over the document: no shape
        Assert.Null(QueryShape.Of(nested, Json.User));
        Expression<Func<User, bool>> selected = u => u.Tags.Select(t => t.ToUpperInvariant()).Contains("X"); // a nested lambda not over the document: no shape either
        Assert.Null(QueryShape.Of(selected, Json.User)); // a slot would key it by its type only, and replay one selector's path for another
    }

    [Fact]
    public async Task Queries_through_the_cache_return_what_the_data_says()
    {
        TranslationCache.Clear();
        var random = new Random(77);
        await using var store = DocumentTestStore.InMemory();
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_age", u => u.Age));
        await store.EnsureIndexAsync(IndexDefinition.For(Json.User, "users_by_name", u => u.Name));
        var users = new List<User>();
        await using (var writer = store.OpenSession())
        {
            for (var i = 0; i < 400; i++)
            {
                var user = DocumentTestStore.NewUser("n" + random.Next(12), random.Next(0, 50), null, "t" + random.Next(4));
                writer.Store(user, Json.User, $"users/{i:D4}");
                users.Add(user);
            }

            await writer.SaveChangesAsync();
        }

        for (var i = 0; i < 300; i++)
        {
            await using var session = store.OpenSession();
            var take = random.Next(1, 60);
            List<User> found;
            IEnumerable<User> expected;
            if (random.Next(2) == 0)
            {
                var low = random.Next(-3, 52);
                var high = low + random.Next(0, 6);
                found = await session.Query(Json.User).Where(u => u.Age >= low && u.Age < high).Take(take).ToListAsync();
                expected = users.Where(u => u.Age >= low && u.Age < high).OrderBy(u => u.Age).ThenBy(u => u.Id, StringComparer.Ordinal);
            }
            else
            {
                var name = "n" + random.Next(13);
                found = await session.Query(Json.User).Where(u => u.Name == name).Take(take).ToListAsync();
                expected = users.Where(u => u.Name == name).OrderBy(u => u.Id, StringComparer.Ordinal);
            }

            Assert.Equal(expected.Take(take).Select(u => u.Id), found.Select(u => u.Id));
            foreach (var user in found)
            {
                Assert.Same(user, await session.LoadAsync(user.Id!, Json.User)); // every result is tracked
            }
        }
    }

    [Fact]
    public void Parallel_work_gives_every_item_its_own_result()
    {
        for (var count = 0; count < 200; count += 7)
        {
            var runs = new int[count];
            var results = new object?[count];
            ParallelWork.Run(count, i =>
            {
                Interlocked.Increment(ref runs[i]);
                return i;
            }, results);
            Assert.All(runs, r => Assert.Equal(1, r)); // each item once, on one thread or the other
            Assert.Equal(Enumerable.Range(0, count).Cast<object>(), results.Cast<object>());
        }
    }

    /// <summary>
    /// When Run returns, no helper is still inside an item: the query returns its batch buffer to
    /// the pool right after, and a helper reading it then would hand another query's bytes to the
    /// user's converters. Slow items make the helper likely to be mid-item when the caller runs out.
    /// </summary>
    [Fact]
    public void When_parallel_work_returns_no_item_is_still_running()
    {
        for (var round = 0; round < 50; round++)
        {
            var inside = 0;
            var results = new object?[16];
            ParallelWork.Run(results.Length, i =>
            {
                Interlocked.Increment(ref inside);
                Thread.SpinWait(20_000 * (1 + (i % 3)));
                Interlocked.Decrement(ref inside);
                return i;
            }, results);
            Assert.Equal(0, Volatile.Read(ref inside));
            Assert.All(results, r => Assert.NotNull(r));
        }
    }
}
