using Voron.LoadTests.Stores;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>The paths of the orders workload, by report name, and the one way to open them.</summary>
internal static class OrderPaths
{
    /// <summary>(a) Voron.Documents: sessions, LINQ, a compound index.</summary>
    public const string Documents = "documents";

    /// <summary>(b) SQL on <c>Vfs=voron</c>, relational tables.</summary>
    public const string SqlVoron = "sql-voron";

    /// <summary>(c) SQL over documents: a <c>voron_docs</c> table on <c>Vfs=voron</c> with the document store bound.</summary>
    public const string SqlDocs = "sql-docs";

    /// <summary>(a) over a sealed store: the same store opened with a key.</summary>
    public const string DocumentsSealed = "documents-sealed";

    /// <summary>(b) over a sealed store: <c>VoronSqlite.Register</c> over an environment opened with a key.</summary>
    public const string SqlVoronSealed = "sql-voron-sealed";

    /// <summary>(c) over a sealed store.</summary>
    public const string SqlDocsSealed = "sql-docs-sealed";

    /// <summary>(d) Stock SQLite, WAL, <c>synchronous=FULL</c>, relational tables.</summary>
    public const string Sqlite = "sqlite";

    /// <summary>(e) LiteDB 5.</summary>
    public const string LiteDb = "litedb";

    /// <summary>
    /// Every path, from every store's <see cref="IStoreAdapter.OrderPaths"/>, in
    /// <see cref="StoreAdapters.All"/>'s order, each sealed one after its unsealed twin.
    /// </summary>
    public static IReadOnlyList<OrderPathKind> Kinds { get; } = [.. StoreAdapters.All.SelectMany(a => a.OrderPaths)];

    /// <summary>Every path --paths takes, the sealed ones after their twins.</summary>
    public static readonly string[] WithSealed = [.. Kinds.Select(k => k.Name)];

    /// <summary>Every unsealed path: the default ones (a sealed one runs when named or with --encrypt).</summary>
    public static readonly string[] All = [.. Kinds.Where(k => k.UnsealedTwin == null).Select(k => k.Name)];

    /// <summary>The key of the query-by-customer plan in <see cref="IOrderPath.Plans"/>.</summary>
    public const string QueryPlan = "query";

    /// <summary>The key of the report's plan in <see cref="IOrderPath.Plans"/>.</summary>
    public const string ReportPlan = "report";

    /// <summary>
    /// Creates path <paramref name="name"/> in the empty <paramref name="directory"/> and loads the
    /// customers, products and preloaded orders of <paramref name="size"/> through the engine's
    /// batched bulk path, then creates the indexes and settles. Every path runs on
    /// <paramref name="disk"/> (the real one when null): each store gets its delay where it
    /// flushes (<see cref="SimulatedDisk"/>).
    /// </summary>
    public static async Task<IOrderPath> OpenAsync(string name, string directory, OrdersSize size, SimulatedDisk? disk = null)
    {
        var kind = Kinds.SingleOrDefault(k => k.Name == name) ??
                   throw new ArgumentException($"unknown order path '{name}' (known: {string.Join(", ", WithSealed)})", nameof(name));
        return await kind.OpenAsync(directory, size, disk ?? SimulatedDisk.None).ConfigureAwait(false);
    }

    /// <summary>The arguments the plans are shown for: a customer's orders in the last 30 days of the data.</summary>
    internal static (string Customer, string From, string To) PlanArguments { get; } =
        (OrdersData.CustomerId(1), OrdersData.Time(OrdersData.Epoch.AddDays(-30)), OrdersData.Time(OrdersData.Epoch));
}
