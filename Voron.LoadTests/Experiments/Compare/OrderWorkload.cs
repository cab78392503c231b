using Voron.LoadTests.Capabilities.Orders;
using LoadScenario = Voron.LoadTests.Load.Scenario;

namespace Voron.LoadTests.Experiments.Compare;

/// <summary>
/// The application workload the <c>compare</c> experiment runs through every path: each invocation
/// is one operation a shop's API serves, picked at random in fixed shares (<see cref="Mix"/>) —
/// create an order, load one by id, a customer's orders in a 30-day window (indexed query), an
/// order's status updated with optimistic concurrency, and a customer's 90-day report (count and
/// total per status). Each operation is a named step; a conflict is an ok outcome with status
/// "conflict" (optimistic concurrency doing its job), an order that is not found is a failure.
/// </summary>
internal sealed class OrderWorkload
{
    public const string Create = "create";
    public const string Load = "load";
    public const string Query = "query";
    public const string Update = "update";
    public const string Report = "report";

    /// <summary>Percent of invocations per operation, in the order they are picked.</summary>
    public static readonly (string Step, int Percent)[] Mix = [(Create, 20), (Load, 40), (Query, 20), (Update, 15), (Report, 5)];

    /// <summary>The query's window and the most orders it returns.</summary>
    public const int QueryDays = 30;
    public const int QueryTake = 20;

    /// <summary>The report's window.</summary>
    public const int ReportDays = 90;

    private readonly OrdersSize _size;
    private long _nextOrder;

    public OrderWorkload(OrdersSize size)
    {
        _size = size;
        _nextOrder = size.Orders;
    }

    /// <summary>Orders created so far by this workload (beyond the preloaded ones).</summary>
    public long Created => Interlocked.Read(ref _nextOrder) - _size.Orders;

    public static string Describe() => string.Join(", ", Mix.Select(m => $"{m.Step} {m.Percent}%"));

    /// <summary>One scenario over <paramref name="path"/>: each copy's state is its own caller (connection, prepared statements).</summary>
    public ScenarioProps ScenarioOver(IOrderPath path, string name)
    {
        var scenario = LoadScenario.Create(name, context =>
        {
            var caller = (IOrderCaller)context.State!;
            var pick = context.Random.Next(100);
            foreach (var (step, percent) in Mix)
            {
                if (pick < percent)
                {
                    return Run(step, caller, context);
                }

                pick -= percent;
            }

            throw new InvalidOperationException("The mix's shares do not add up to 100.");
        })
        .WithCopyState(_ => path.CreateCaller()) // made before the clock (copies an open phase adds make theirs on first use)
        .WithSettle(path.Settle);
        return path.UsesThreads ? scenario.WithThreadPerCopy() : scenario;
    }

    private ValueTask<Response> Run(string step, IOrderCaller caller, ScenarioContext context) => step switch
    {
        Create => Step.Run(step, context, async () =>
        {
            var n = Interlocked.Increment(ref _nextOrder) - 1;
            await caller.CreateOrderAsync(OrdersData.Order(n, _size.Customers, _size.Products)).ConfigureAwait(false);
            return Response.Ok("created");
        }),
        Load => Step.Run(step, context, async () =>
        {
            var id = OrdersData.OrderId(context.Random.NextInt64(_size.Orders));
            var order = await caller.LoadOrderAsync(id).ConfigureAwait(false);
            return order?.Id == id ? Response.Ok("found") : Response.Fail("missing", $"{id} was not found");
        }),
        Query => Step.Run(step, context, async () =>
        {
            var (customer, from, to) = Window(context.Random, QueryDays);
            var count = await caller.QueryByCustomerAsync(customer, from, to, QueryTake).ConfigureAwait(false);
            return Response.Ok(count > 0 ? "rows" : "none");
        }),
        Update => Step.Run(step, context, async () =>
        {
            var id = OrdersData.OrderId(context.Random.NextInt64(_size.Orders));
            var status = OrdersData.Statuses[context.Random.Next(OrdersData.Statuses.Length)];
            return await caller.UpdateStatusAsync(id, status).ConfigureAwait(false) ? Response.Ok("updated") : Response.Ok("conflict");
        }),
        _ => Step.Run(step, context, async () =>
        {
            var (customer, from, _) = Window(context.Random, ReportDays);
            var totals = await caller.ReportAsync(customer, from).ConfigureAwait(false);
            return Response.Ok(totals.Count > 0 ? "rows" : "none");
        }),
    };

    /// <summary>A random customer and a window of <paramref name="days"/> ending at a random time of the data's year.</summary>
    private (string Customer, string From, string To) Window(Random random, int days)
    {
        var customer = OrdersData.CustomerId(random.NextInt64(_size.Customers));
        var end = OrdersData.Epoch.AddDays(-random.Next(0, 365 - days));
        return (customer, OrdersData.Time(end.AddDays(-days)), OrdersData.Time(end));
    }
}
