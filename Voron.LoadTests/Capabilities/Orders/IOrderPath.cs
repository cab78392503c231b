namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// One way an application keeps the orders workload (<see cref="OrdersData"/>): a store, configured
/// as a knowledgeable user configures it, with every write durable. <see cref="OrderPaths.OpenAsync"/>
/// creates and loads it; callers (<see cref="CreateCaller"/>, one per concurrent copy) run the mix.
/// </summary>
internal interface IOrderPath : IDisposable
{
    /// <summary>The report name: one of <see cref="OrderPaths.All"/>.</summary>
    string Name { get; }

    /// <summary>One line: what the path is.</summary>
    string Description { get; }

    /// <summary>What an acknowledged write survives here, and how the path is configured for it.</summary>
    string Durability { get; }

    /// <summary>
    /// Whether the API blocks (Microsoft.Data.Sqlite's async methods run synchronously; LiteDB's
    /// transactions are bound to the thread): callers then run on dedicated threads, not as tasks.
    /// </summary>
    bool UsesThreads { get; }

    /// <summary>A handle for one concurrent copy.</summary>
    IOrderCaller CreateCaller();

    /// <summary>
    /// The work the writes leave for later, to be done inside the timed span: Voron's data-file
    /// flush, a SQLite WAL checkpoint, LiteDB's checkpoint.
    /// </summary>
    void Settle();

    /// <summary>
    /// How the query and the report run, keyed <see cref="OrderPaths.QueryPlan"/> and
    /// <see cref="OrderPaths.ReportPlan"/>: EXPLAIN QUERY PLAN on the SQL paths, the engine's own
    /// plan text where it has one.
    /// </summary>
    IReadOnlyDictionary<string, string> Plans();
}
