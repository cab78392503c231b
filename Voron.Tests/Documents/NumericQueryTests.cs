using System.Linq.Expressions;
using System.Text.Json.Serialization;

namespace Voron.Tests.Documents;

/// <summary>A document with a member of each numeric type the query tests compare.</summary>
[DocumentCollection("numbers")]
public sealed class Numbers
{
    public string? Id { get; set; }

    public int I { get; set; }

    public long L { get; set; }

    public double D { get; set; }

    public float F { get; set; }

    public decimal M { get; set; }

    public int? NI { get; set; }

    public long? NL { get; set; }

    public double? ND { get; set; }
}

[JsonSerializable(typeof(Numbers))]
public sealed partial class NumbersJson : JsonSerializerContext;

/// <summary>
/// Numbers in queries compare as the C# expression compares them: the member converted to the
/// wider type, never the constant to the member's type; with an index and without one.
/// </summary>
public sealed class NumericQueryTests(ITestOutputHelper output)
{
    private static readonly string[] Members = ["I", "L", "D", "F", "M", "NI", "NL", "ND"];

    private static async Task<DocumentStore> OpenAsync(bool indexed, IEnumerable<Numbers> documents)
    {
        var store = DocumentTestStore.InMemory();
        if (indexed)
        {
            foreach (var member in Members)
            {
                await store.EnsureIndexAsync(new IndexDefinition("numbers", "numbers_by_" + member, member));
            }
        }

        await store.BulkInsertAsync(documents, NumbersJson.Default.Numbers);
        return store;
    }

    private static async Task<List<string>> IdsAsync(DocumentStore store, Expression<Func<Numbers, bool>> predicate, bool scan)
    {
        await using var session = store.OpenSession();
        var query = session.Query(NumbersJson.Default.Numbers).Where(predicate);
        if (scan)
        {
            query = query.AllowScan();
        }

        return [.. (await query.ToListAsync()).Select(n => n.Id!).Order(StringComparer.Ordinal)];
    }

    private static Numbers[] Ages(params int[] ages) =>
        [.. ages.Select(a => new Numbers { Id = $"n/{a.ToString(CultureInfo.InvariantCulture)}", I = a, NI = a, L = a, D = a, F = a, M = a })];

    private static string[] Ids(params int[] ages) => [.. ages.Select(a => $"n/{a.ToString(CultureInfo.InvariantCulture)}").Order(StringComparer.Ordinal)];

    // Regression: the constant went through Convert.ChangeType to the member's type (18.5 became
    // 18, 3_000_000_000L overflowed) after the member's widening conversion was stripped. Fixed:
    // the comparison is encoded in the type C# compares in (Querying/NumericComparison.cs).
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Where_compares_an_int_member_with_a_fractional_double_as_double(bool indexed)
    {
        await using var store = await OpenAsync(indexed, Ages(-3, -2, 17, 18, 19));
        Assert.Equal(Ids(19), await IdsAsync(store, n => n.I >= 18.5, !indexed));
        Assert.Equal(Ids(18, 19), await IdsAsync(store, n => n.I > 17.5, !indexed));
        Assert.Empty(await IdsAsync(store, n => n.I == 18.5, !indexed));
        Assert.Equal(Ids(-3), await IdsAsync(store, n => n.I <= -2.5, !indexed));
        Assert.Equal(Ids(-3, -2, 17, 18), await IdsAsync(store, n => n.I < 18.5, !indexed));
        Assert.Equal(Ids(19), await IdsAsync(store, n => n.NI >= 18.5, !indexed));
        Assert.Equal(Ids(18, 19), await IdsAsync(store, n => 17.5 < n.I, !indexed));
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Where_compares_an_int_member_with_a_long_beyond_int_without_overflow(bool indexed)
    {
        await using var store = await OpenAsync(indexed, Ages(-3, 18, int.MaxValue));
        var limit = 3_000_000_000L;
        Assert.Equal(Ids(-3, 18, int.MaxValue), await IdsAsync(store, n => n.I < limit, !indexed));
        Assert.Equal(Ids(-3, 18, int.MaxValue), await IdsAsync(store, n => n.NI < limit, !indexed));
#pragma warning disable CS0652 // the issue's own expressions: comparisons C# knows the answer to
        Assert.Equal(Ids(-3, 18, int.MaxValue), await IdsAsync(store, n => n.I < 3_000_000_000L, !indexed));
        Assert.Empty(await IdsAsync(store, n => n.I > 3_000_000_000L, !indexed));
        Assert.Equal(Ids(-3, 18, int.MaxValue), await IdsAsync(store, n => n.I > -3_000_000_000L, !indexed));
        Assert.Empty(await IdsAsync(store, n => n.I == 4_294_967_314L, !indexed)); // 18 + 2^32: not 18
#pragma warning restore CS0652
        Assert.Equal(Ids(18), await IdsAsync(store, n => n.I == 18L, !indexed));
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Where_converts_long_and_float_members_as_csharp_does(bool indexed)
    {
        // (double)9007199254740993L is 9007199254740992.0, and (double)0.1f is not 0.1: C# compares those.
        Numbers[] documents =
        [
            new() { Id = "n/a", L = 9_007_199_254_740_993L, F = 0.1f },
            new() { Id = "n/b", L = 9_007_199_254_740_992L, F = 0.2f },
            new() { Id = "n/c", L = 9_007_199_254_740_995L, F = 0.3f },
        ];
        await using var store = await OpenAsync(indexed, documents);
        Assert.Equal(["n/a", "n/b"], await IdsAsync(store, n => n.L == 9_007_199_254_740_992.0, !indexed));
        Assert.Equal(["n/a", "n/b"], await IdsAsync(store, n => n.L <= 9_007_199_254_740_992.0, !indexed));
        Assert.Equal(["n/b"], await IdsAsync(store, n => n.L < 9_007_199_254_740_993L, !indexed));
        Assert.Empty(await IdsAsync(store, n => n.F == 0.1, !indexed));
        Assert.Equal(["n/a"], await IdsAsync(store, n => n.F == 0.1f, !indexed));
        Assert.Equal(["n/a", "n/b", "n/c"], await IdsAsync(store, n => n.F > 0.1, !indexed));
        Assert.Equal(["n/b", "n/c"], await IdsAsync(store, n => n.M < 1.5m && n.F > 0.15, true));
    }

    [Fact]
    public async Task Where_refuses_a_narrowing_cast_of_the_member()
    {
        await using var store = await OpenAsync(false, Ages(1));
        await using var session = store.OpenSession();
        var error = Assert.Throws<NotSupportedException>(() => session.Query(NumbersJson.Default.Numbers).Where(n => (int)n.D == 1));
        Assert.Contains("Double to Int32", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Where_refuses_a_range_on_an_enum_stored_as_its_name()
    {
        // C# compares Status.Active > Status.New by number; the documents hold "Active" and "New".
        await using var store = DocumentTestStore.InMemory();
        await using var session = store.OpenSession();
        var error = Assert.Throws<NotSupportedException>(() => session.Query(TestJson.Default.User).Where(u => u.Status > Status.New));
        Assert.Contains("stored as its name", error.Message, StringComparison.Ordinal);
        session.Store(new User { Name = "a", Status = Status.Banned }, TestJson.Default.User);
        await session.SaveChangesAsync();
        Assert.Single(await session.Query(TestJson.Default.User).Where(u => u.Status == Status.Banned).AllowScan().ToListAsync());
        Assert.Empty(await session.Query(TestJson.Default.User).Where(u => u.Status != Status.Banned).AllowScan().ToListAsync());
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Where_accepts_not_equal_as_a_check_per_result(bool indexed)
    {
        var documents = Ages(1, 2, 3);
        documents[1].NI = null;
        await using var store = await OpenAsync(indexed, documents);
        Assert.Equal(Ids(1, 3), await IdsAsync(store, n => n.I != 2, true));
        Assert.Equal(Ids(1, 3), await IdsAsync(store, n => n.NI != null, true));
        Assert.Equal(Ids(2, 3), await IdsAsync(store, n => n.NI != 1, true));
        Assert.Equal(Ids(1, 3), await IdsAsync(store, n => n.I != 2.0 && n.I > 0, !indexed));
        await using var session = store.OpenSession();
        await Assert.ThrowsAsync<NotSupportedException>(() => session.Query(NumbersJson.Default.Numbers).Where(n => n.I != 2).ToListAsync());
    }

    /// <summary>
    /// Class test: random documents with members of every numeric type (boundaries, negatives,
    /// fractions, longs beyond 2^53, nulls), random operators against random constants of every
    /// other numeric type (NaN and infinities included), with an index on the member and without
    /// one: the results equal LINQ-to-objects over the same entities.
    /// </summary>
    [Fact]
    public async Task Where_on_numbers_matches_linq_to_objects_for_every_type_and_operator()
    {
        var seed = TestSeed.Next(output, nameof(Where_on_numbers_matches_linq_to_objects_for_every_type_and_operator));
        var random = new Random(seed);
        var documents = Enumerable.Range(0, 120).Select(i => RandomDocument(random, i)).ToList();
        await using var indexed = await OpenAsync(true, documents);
        await using var scanned = await OpenAsync(false, documents);
        var parameter = Expression.Parameter(typeof(Numbers), "n");
        var (checkedCount, partial) = (0, 0);
        for (var round = 0; round < 400; round++)
        {
            var member = Members[random.Next(Members.Length)];
            var memberType = typeof(Numbers).GetProperty(member)!.PropertyType;
            var underlying = Nullable.GetUnderlyingType(memberType) ?? memberType;
            var constant = random.Next(4) == 0 ? ValueOf(documents[random.Next(documents.Count)], member, random) : RandomConstant(random);
            if (constant == null || !Compiles(underlying, constant.GetType()))
            {
                continue;
            }

            var target = Promote(underlying, constant.GetType());
            var compared = memberType != underlying ? typeof(Nullable<>).MakeGenericType(target) : target;
            Expression left = Expression.Property(parameter, member);
            if (left.Type != compared)
            {
                left = Expression.Convert(left, compared);
            }

            Expression right = Expression.Constant(constant, constant.GetType());
            if (right.Type != compared)
            {
                right = Expression.Convert(right, compared);
            }

            var op = random.Next(6);
            var body = op switch
            {
                0 => Expression.Equal(left, right),
                1 => Expression.NotEqual(left, right),
                2 => Expression.LessThan(left, right),
                3 => Expression.LessThanOrEqual(left, right),
                4 => Expression.GreaterThan(left, right),
                _ => Expression.GreaterThanOrEqual(left, right),
            };
            if (random.Next(2) == 0)
            {
                body = FlipSides(body);
            }

            var predicate = Expression.Lambda<Func<Numbers, bool>>(body, parameter);
            var compiled = predicate.Compile();
            List<string> expected = [.. documents.Where(compiled).Select(d => d.Id!).Order(StringComparer.Ordinal)];
            checkedCount++;
            partial += expected.Count > 0 && expected.Count < documents.Count ? 1 : 0;
            var context = $"seed {seed} round {round}: {body} with {constant} ({constant.GetType().Name})";
            Assert.True(expected.SequenceEqual(await IdsAsync(scanned, predicate, true)), $"{context}, without an index: expected {string.Join(",", expected)}, got {string.Join(",", await IdsAsync(scanned, predicate, true))}");
            Assert.True(expected.SequenceEqual(await IdsAsync(indexed, predicate, true)), $"{context}, with an index: expected {string.Join(",", expected)}, got {string.Join(",", await IdsAsync(indexed, predicate, true))}");
            if (op != 1)
            {
                // Served by the index without a scan.
                Assert.True(expected.SequenceEqual(await IdsAsync(indexed, predicate, false)), $"{context}, index only");
            }
        }

        output.WriteLine($"{checkedCount} comparisons checked, {partial} of them matching some documents but not all");
        Assert.True(checkedCount > 200 && partial > 100, $"seed {seed}: too few meaningful comparisons ({checkedCount}, {partial})");
    }

    /// <summary>The same comparison written with the constant first (C# flips the operator).</summary>
    private static BinaryExpression FlipSides(BinaryExpression body) => body.NodeType switch
    {
        ExpressionType.LessThan => Expression.GreaterThan(body.Right, body.Left),
        ExpressionType.LessThanOrEqual => Expression.GreaterThanOrEqual(body.Right, body.Left),
        ExpressionType.GreaterThan => Expression.LessThan(body.Right, body.Left),
        ExpressionType.GreaterThanOrEqual => Expression.LessThanOrEqual(body.Right, body.Left),
        ExpressionType.Equal => Expression.Equal(body.Right, body.Left),
        _ => Expression.NotEqual(body.Right, body.Left),
    };

    /// <summary>Whether C# compiles "member op constant" (decimal does not mix with float or double).</summary>
    private static bool Compiles(Type member, Type constant) =>
        !((member == typeof(decimal) && (constant == typeof(double) || constant == typeof(float))) ||
          (constant == typeof(decimal) && (member == typeof(double) || member == typeof(float))));

    /// <summary>C#'s binary numeric promotion for the types these tests use.</summary>
    private static Type Promote(Type a, Type b)
    {
        Type[] order = [typeof(int), typeof(long), typeof(float), typeof(double)];
        if (a == typeof(decimal) || b == typeof(decimal))
        {
            return typeof(decimal);
        }

        return order[Math.Max(Array.IndexOf(order, a), Array.IndexOf(order, b))];
    }

    private static object? ValueOf(Numbers document, string member, Random random)
    {
        var value = typeof(Numbers).GetProperty(member)!.GetValue(document);
        return value switch
        {
            // The stored value itself, or one of its neighbours in another type.
            int i when random.Next(2) == 0 => i + 0.5,
            long l when random.Next(2) == 0 => (double)l,
            float f when random.Next(2) == 0 => (double)f,
            _ => value,
        };
    }

    private static Numbers RandomDocument(Random random, int i) => new()
    {
        Id = $"n/{i:D4}",
        I = RandomInt(random),
        L = RandomLong(random),
        D = RandomDouble(random),
        F = RandomFloat(random),
        M = RandomDecimal(random),
        NI = random.Next(5) == 0 ? null : RandomInt(random),
        NL = random.Next(5) == 0 ? null : RandomLong(random),
        ND = random.Next(5) == 0 ? null : RandomDouble(random),
    };

    private static int RandomInt(Random random) => random.Next(6) switch
    {
        0 => Pick(random, int.MinValue, int.MaxValue, 0, -1, 1, 16_777_217, -16_777_217),
        1 => random.Next(),
        _ => random.Next(-40, 40),
    };

    private static long RandomLong(Random random) => random.Next(6) switch
    {
        0 => Pick(random, long.MinValue, long.MaxValue, 0L, -1L, (1L << 53) + 1, (1L << 53) - 1, -(1L << 53) - 1, 1L << 53, int.MaxValue + 1L),
        1 => random.NextInt64(long.MinValue, long.MaxValue),
        2 => (1L << 53) + random.Next(-4, 5),
        _ => random.Next(-40, 40),
    };

    private static double RandomDouble(Random random) => random.Next(7) switch
    {
        0 => Pick(random, double.MaxValue, double.MinValue, double.Epsilon, -0.0, 0.1, 1e300, -1e-300, 9_007_199_254_740_994.0, 4_294_967_296.5),
        1 => (random.NextDouble() - 0.5) * 1e19,
        2 => random.Next(-40, 40) / 2.0,
        3 => random.Next(-40, 40) / 10.0,
        _ => random.Next(-40, 40),
    };

    private static float RandomFloat(Random random) => random.Next(6) switch
    {
        0 => Pick(random, float.MaxValue, float.MinValue, float.Epsilon, 0.1f, 16_777_216f, 16_777_218f, 3e9f, -0.3f),
        1 => (float)((random.NextDouble() - 0.5) * 1e10),
        2 => random.Next(-40, 40) / 10f,
        _ => random.Next(-40, 40),
    };

    // Decimals of at most 15 significant digits: index keys hold numbers as doubles (docs/documents.md).
    private static decimal RandomDecimal(Random random) => random.Next(5) switch
    {
        0 => Pick(random, 0m, -1m, 0.1m, 123456789012.345m, -999999999999999m, 4_294_967_296.5m),
        1 => random.Next(-4000, 4000) / 100m,
        _ => random.Next(-40, 40),
    };

    private static object RandomConstant(Random random) => random.Next(5) switch
    {
        0 => random.Next(4) == 0 ? Pick(random, int.MinValue, int.MaxValue, 0) : random.Next(-45, 45),
        1 => random.Next(3) == 0 ? RandomLong(random) : Pick(random, 3_000_000_000L, -3_000_000_000L, (1L << 53) + 1, long.MaxValue, random.Next(-45, 45)),
        2 => random.Next(6) == 0 ? Pick(random, double.NaN, double.PositiveInfinity, double.NegativeInfinity, 0.1, 2.5, -2.5, 9_007_199_254_740_993.0, 1e20) : RandomDouble(random),
        3 => random.Next(6) == 0 ? Pick(random, float.NaN, float.PositiveInfinity, 0.1f, 16_777_217f, 2.5f) : RandomFloat(random),
        _ => random.Next(3) == 0 ? Pick(random, 0.5m, -2.5m, 3_000_000_000.5m, 9_007_199_254_740_993m) : RandomDecimal(random),
    };

    private static T Pick<T>(Random random, params T[] values) => values[random.Next(values.Length)];
}
