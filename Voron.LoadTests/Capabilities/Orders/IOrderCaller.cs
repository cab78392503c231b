namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// One concurrent copy's handle on an <see cref="IOrderPath"/> (its own connection and prepared
/// commands where the path needs them; not thread-safe). Each method is one unit of work: a
/// session, a transaction, or one statement. Every write is durable when its call completes.
/// </summary>
internal interface IOrderCaller : IDisposable
{
    /// <summary>Stores a new order in one durable transaction (relational: the order row and its line rows).</summary>
    ValueTask CreateOrderAsync(Order order);

    /// <summary>The whole order (relational: with its lines), materialized; null when there is none.</summary>
    ValueTask<Order?> LoadOrderAsync(string id);

    /// <summary>
    /// The customer's orders with <paramref name="from"/> &lt;= CreatedAt &lt; <paramref name="to"/>, in
    /// CreatedAt order, at most <paramref name="take"/>, each materialized whole; returns how many.
    /// </summary>
    async ValueTask<int> QueryByCustomerAsync(string customer, string from, string to, int take) =>
        (await QueryOrdersAsync(customer, from, to, take).ConfigureAwait(false)).Count;

    /// <summary>The orders <see cref="QueryByCustomerAsync"/> counts, in order (what each path implements; tests check ids and order).</summary>
    ValueTask<IReadOnlyList<Order>> QueryOrdersAsync(string customer, string from, string to, int take);

    /// <summary>
    /// Reads the order and writes <paramref name="status"/> only if the order is unchanged since the
    /// read (optimistic concurrency): false on a conflict (another writer won), true when written;
    /// throws for anything else (a missing order too).
    /// </summary>
    ValueTask<bool> UpdateStatusAsync(string id, string status);

    /// <summary>Per status (in ordinal order): the count and the sum of Total of the customer's orders with CreatedAt &gt;= <paramref name="from"/>.</summary>
    ValueTask<IReadOnlyList<StatusTotal>> ReportAsync(string customer, string from);
}
