using ConnectionString = LiteDB.ConnectionString;
using ConnectionType = LiteDB.ConnectionType;
using LiteDatabase = LiteDB.LiteDatabase;
using Microsoft.Data.Sqlite;
using Voron.Documents;
using Voron.SqliteVfs;
using Voron.LoadTests.Capabilities.Orders;
using Xunit.Abstractions;
using Voron.LoadTests.Stores.LiteDb;
using Voron.LoadTests.Stores.Voron;

namespace Voron.LoadTests.Tests;

/// <summary>
/// Every path of the orders workload gives the same answers: what it stores comes back whole, the
/// query and the report equal a LINQ-to-objects computation over the generated data, and the
/// optimistic status update never loses a write. Behaviour only, on a tiny store; no timing.
/// </summary>
public sealed class OrderPathTests(ITestOutputHelper output) : IDisposable
{
    private static readonly OrdersSize Tiny = new(200, 20, 1_000);
    private static readonly OrdersJson Json = OrdersJson.Default;

    private readonly TempDirectory _directory = new();

    /// <summary>Every path, the sealed ones (each over a store opened with a key) included: they must give the same answers.</summary>
    public static TheoryData<string> Paths => [.. OrderPaths.WithSealed];

    /// <summary>The paths whose store a test can reopen: a sealed path's key is its own and gone with it.</summary>
    public static TheoryData<string> UnsealedPaths => [.. OrderPaths.All];

    private Task<IOrderPath> OpenAsync(string name)
    {
        var directory = _directory.Combine(name);
        Directory.CreateDirectory(directory);
        return OrderPaths.OpenAsync(name, directory, Tiny);
    }

    private static string Text(Order? order) => order == null ? "null" : JsonSerializer.Serialize(order, Json.Order);

    private static IEnumerable<Order> Generated() => OrdersData.Orders(Tiny);

    private static string DaysBefore(int days) => OrdersData.Time(OrdersData.Epoch.AddDays(-days));

    /// <summary>Runs <paramref name="work"/> as the path's callers run: on a thread of its own for a blocking API.</summary>
    private static Task OnCaller(IOrderPath path, Func<Task> work) =>
        path.UsesThreads ? Task.Factory.StartNew(() => work().GetAwaiter().GetResult(), TaskCreationOptions.LongRunning) : Task.Run(work);

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Open_loads_the_data_and_describes_the_path(string name)
    {
        using var path = await OpenAsync(name);
        using var caller = path.CreateCaller();

        Assert.Equal(name, path.Name);
        Assert.False(string.IsNullOrWhiteSpace(path.Description));
        Assert.False(string.IsNullOrWhiteSpace(path.Durability));
        foreach (var n in new long[] { 0, 1, 517, Tiny.Orders - 1 })
        {
            Assert.Equal(Text(OrdersData.Order(n, Tiny.Customers, Tiny.Products)), Text(await caller.LoadOrderAsync(OrdersData.OrderId(n))));
        }

        Assert.Null(await caller.LoadOrderAsync(OrdersData.OrderId(Tiny.Orders + 10)));
        path.Settle();
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task A_created_order_loads_back_equal_and_is_found_by_the_query_and_the_report(string name)
    {
        using var path = await OpenAsync(name);
        using var caller = path.CreateCaller();
        var created = OrdersData.Order(Tiny.Orders, Tiny.Customers, Tiny.Products);

        await caller.CreateOrderAsync(created);
        path.Settle();

        Assert.Equal(Text(created), Text(await caller.LoadOrderAsync(created.Id!)));
        var all = Generated().Append(created).Where(o => o.Customer == created.Customer).ToList();
        var found = await caller.QueryOrdersAsync(created.Customer, created.CreatedAt, OrdersData.Time(OrdersData.Epoch), 1_000);
        Assert.Contains(created.Id, found.Select(o => o.Id));
        AssertReport(StatusTotal.Of(all.Where(o => string.CompareOrdinal(o.CreatedAt, DaysBefore(400)) >= 0)),
            await caller.ReportAsync(created.Customer, DaysBefore(400)));
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Query_by_customer_returns_the_orders_linq_to_objects_selects_in_time_order(string name)
    {
        using var path = await OpenAsync(name);
        using var caller = path.CreateCaller();

        foreach (var customer in new long[] { 0, 7, 150 })
        {
            foreach (var (from, to, take) in new[] { (DaysBefore(365), DaysBefore(0), 1_000), (DaysBefore(200), DaysBefore(50), 1_000), (DaysBefore(300), DaysBefore(10), 3) })
            {
                var id = OrdersData.CustomerId(customer);
                var expected = Generated()
                    .Where(o => o.Customer == id && string.CompareOrdinal(o.CreatedAt, from) >= 0 && string.CompareOrdinal(o.CreatedAt, to) < 0)
                    .OrderBy(o => o.CreatedAt, StringComparer.Ordinal)
                    .Take(take)
                    .Select(Text)
                    .ToList();

                var found = await caller.QueryOrdersAsync(id, from, to, take);

                Assert.Equal(expected, found.Select(Text).ToList());
                Assert.Equal(expected.Count, await caller.QueryByCustomerAsync(id, from, to, take));
            }
        }
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Report_equals_the_linq_to_objects_totals_per_status(string name)
    {
        using var path = await OpenAsync(name);
        using var caller = path.CreateCaller();

        foreach (var customer in new long[] { 0, 3, 199 })
        {
            foreach (var days in new[] { 400, 120, 1 })
            {
                var id = OrdersData.CustomerId(customer);
                var from = DaysBefore(days);
                var expected = StatusTotal.Of(Generated().Where(o => o.Customer == id && string.CompareOrdinal(o.CreatedAt, from) >= 0));

                AssertReport(expected, await caller.ReportAsync(id, from));
            }
        }
    }

    /// <summary>Counts exactly; totals to a rounding of the sum (the paths add in different orders).</summary>
    private static void AssertReport(IReadOnlyList<StatusTotal> expected, IReadOnlyList<StatusTotal> actual)
    {
        Assert.Equal(expected.Select(r => (r.Status, r.Orders)), actual.Select(r => (r.Status, r.Orders)));
        foreach (var (e, a) in expected.Zip(actual))
        {
            Assert.Equal(e.Total, a.Total, 1e-6 * Math.Max(1, Math.Abs(e.Total)));
        }
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Update_status_writes_the_status_and_keeps_the_rest(string name)
    {
        using var path = await OpenAsync(name);
        using var caller = path.CreateCaller();
        var id = OrdersData.OrderId(42);
        var before = OrdersData.Order(42, Tiny.Customers, Tiny.Products);
        var status = before.Status == "shipped" ? "delivered" : "shipped";

        Assert.True(await caller.UpdateStatusAsync(id, status));

        before.Status = status;
        Assert.Equal(Text(before), Text(await caller.LoadOrderAsync(id)));
        await Assert.ThrowsAnyAsync<Exception>(async () => await caller.UpdateStatusAsync(OrdersData.OrderId(Tiny.Orders + 5), status));
    }

    /// <summary>
    /// Two callers update the same order concurrently, many times. The interleaving cannot be forced
    /// through the callers (on the SQL paths the read and the write hold the write lock together, so
    /// they never conflict), so this asserts what holds for every interleaving: no exception, every
    /// call answers true or false, at least one write won, and the final status is one a winning
    /// call wrote (no lost or torn update).
    /// </summary>
    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Concurrent_status_updates_end_with_a_status_a_winner_wrote_and_never_throw(string name)
    {
        const int Rounds = 40;
        using var path = await OpenAsync(name);
        var id = OrdersData.OrderId(7);
        var written = new[] { new List<string>(), new List<string>() };
        var callers = new[] { path.CreateCaller(), path.CreateCaller() };
        try
        {
            var runs = Enumerable.Range(0, 2).Select(c => OnCaller(path, async () =>
            {
                for (var r = 0; r < Rounds; r++)
                {
                    var status = $"{OrdersData.Statuses[(r + c) % OrdersData.Statuses.Length]}-{c}-{r}";
                    if (await callers[c].UpdateStatusAsync(id, status))
                    {
                        written[c].Add(status);
                    }
                }
            }));
            await Task.WhenAll(runs);
        }
        finally
        {
            Array.ForEach(callers, c => c.Dispose());
        }

        using var reader = path.CreateCaller();
        var final = (await reader.LoadOrderAsync(id))!.Status;
        Assert.NotEmpty(written[0].Concat(written[1]));
        Assert.True(written[0].LastOrDefault() == final || written[1].LastOrDefault() == final,
            $"the final status '{final}' is neither caller's last winning write ({written[0].LastOrDefault()}, {written[1].LastOrDefault()})");
    }

    /// <summary>
    /// The interleaving forced where the path reads outside its write (documents, LiteDB): caller A
    /// reads, caller B updates the order, then A writes. A's stale write loses (false) and B's
    /// status stays. The SQL paths read inside their BEGIN IMMEDIATE, so no writer can come between.
    /// </summary>
    [Theory]
    [InlineData(OrderPaths.Documents)]
    [InlineData(OrderPaths.LiteDb)]
    public async Task A_stale_update_returns_false_and_keeps_the_winner_status(string name)
    {
        using var path = await OpenAsync(name);
        using var stale = path.CreateCaller();
        using var winner = path.CreateCaller();
        var id = OrdersData.OrderId(11);
        var won = false;
        var once = 0;
        async Task Win()
        {
            if (Interlocked.Exchange(ref once, 1) == 0)
            {
                won = await winner.UpdateStatusAsync(id, "paid-by-winner");
            }
        }

        switch (path)
        {
            case DocumentsOrderPath documents:
                documents.BetweenReadAndWrite = Win;
                break;
            case LiteDbOrderPath liteDb:
                liteDb.BetweenReadAndWrite = () => Win().GetAwaiter().GetResult();
                break;
        }

        var staleWon = await stale.UpdateStatusAsync(id, "paid-by-stale");

        Assert.True(won);
        Assert.False(staleWon);
        Assert.Equal("paid-by-winner", (await stale.LoadOrderAsync(id))!.Status);
        Assert.True(await stale.UpdateStatusAsync(id, "shipped")); // a fresh read wins
    }

    /// <summary>
    /// The whole mix from 16 concurrent callers (threads for blocking APIs, tasks otherwise), as a
    /// run drives it: every call answers (no lock timeout, no busy error, no LiteDB transaction
    /// limit), every created order can be loaded afterwards, and the store still reports.
    /// </summary>
    [Theory]
    [MemberData(nameof(Paths))]
    public async Task The_mix_from_16_concurrent_callers_never_throws_and_keeps_every_created_order(string name)
    {
        const int Callers = 16;
        const int Rounds = 6;
        using var path = await OpenAsync(name);
        var callers = Enumerable.Range(0, Callers).Select(_ => path.CreateCaller()).ToArray();
        try
        {
            await Task.WhenAll(Enumerable.Range(0, Callers).Select(c => OnCaller(path, async () =>
            {
                var caller = callers[c];
                for (var r = 0; r < Rounds; r++)
                {
                    var n = Tiny.Orders + (c * Rounds) + r;
                    await caller.CreateOrderAsync(OrdersData.Order(n, Tiny.Customers, Tiny.Products));
                    Assert.NotNull(await caller.LoadOrderAsync(OrdersData.OrderId((c * 37) + r)));
                    await caller.QueryByCustomerAsync(OrdersData.CustomerId(c), DaysBefore(200), DaysBefore(0), 20);
                    await caller.UpdateStatusAsync(OrdersData.OrderId(r), OrdersData.Statuses[c % OrdersData.Statuses.Length]);
                    await caller.ReportAsync(OrdersData.CustomerId(c), DaysBefore(90));
                }
            })));
        }
        finally
        {
            Array.ForEach(callers, c => c.Dispose());
        }

        path.Settle();
        using var reader = path.CreateCaller();
        for (var n = Tiny.Orders; n < Tiny.Orders + (Callers * Rounds); n++)
        {
            Assert.Equal(Text(OrdersData.Order(n, Tiny.Customers, Tiny.Products)), Text(await reader.LoadOrderAsync(OrdersData.OrderId(n))));
        }
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task Plans_show_the_query_and_the_report_use_the_customer_index(string name)
    {
        using var path = await OpenAsync(name);

        var plans = path.Plans();

        foreach (var key in new[] { OrderPaths.QueryPlan, OrderPaths.ReportPlan })
        {
            output.WriteLine($"{name} {key}: {plans.GetValueOrDefault(key)}");
            Assert.True(plans.ContainsKey(key), $"{name} has no {key} plan");
            Assert.Contains(name == OrderPaths.LiteDb ? "Customer" : "orders_by_customer_created", plans[key], StringComparison.Ordinal);
        }
    }

    /// <summary>
    /// An order created through a caller is in the files after the path is disposed: reopened with
    /// the engine's own API (the paths have no reopen of their own; a run always starts afresh).
    /// </summary>
    [Theory]
    [MemberData(nameof(UnsealedPaths))]
    public async Task A_created_order_survives_dispose_and_reopens_with_the_engine_api(string name)
    {
        var created = OrdersData.Order(Tiny.Orders, Tiny.Customers, Tiny.Products);
        using (var path = await OpenAsync(name))
        {
            using var caller = path.CreateCaller();
            await caller.CreateOrderAsync(created);
        }

        var directory = _directory.Combine(name);
        Assert.Equal(Text(created), name switch
        {
            OrderPaths.Documents or OrderPaths.SqlDocs => await LoadDocumentAsync(directory, created.Id!),
            OrderPaths.Sqlite => LoadRelational(new SqliteConnection($"Data Source={Path.Combine(directory, "orders.db")}"), created),
            OrderPaths.SqlVoron => ReopenVoronSql(directory, created),
            OrderPaths.LiteDb => LoadLiteDb(directory, created.Id!),
            _ => throw new ArgumentException(name),
        });
    }

    private static async Task<string> LoadDocumentAsync(string directory, string id)
    {
        using var store = DocumentStore.Open(new DocumentStoreOptions { Path = directory });
        await using var session = store.OpenSession();
        return Text(await session.LoadAsync(id, Json.Order));
    }

    private static string LoadLiteDb(string directory, string id)
    {
        using var database = new LiteDatabase(new ConnectionString { Filename = Path.Combine(directory, "orders.litedb"), Connection = ConnectionType.Direct });
        return Text(database.GetCollection<Order>("orders").FindById(id));
    }

    private static string ReopenVoronSql(string directory, Order created)
    {
        using var environment = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        using var registration = VoronSqlite.Register(environment, "voron-reopen-" + Guid.NewGuid().ToString("N")[..8]);
        return LoadRelational(registration.OpenConnection(SqlVoronOrderPath.Database), created);
    }

    /// <summary>The stored order as the relational caller reads it, through a new caller on <paramref name="connection"/> (which it owns).</summary>
    private static string LoadRelational(SqliteConnection connection, Order created)
    {
        if (connection.State != System.Data.ConnectionState.Open)
        {
            connection.Open();
        }

        using var caller = new RelationalOrderCaller(connection);
        return Text(caller.LoadOrderAsync(created.Id!).AsTask().GetAwaiter().GetResult());
    }

    public void Dispose() => _directory.Dispose();
}
