using LiteDB;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Stores.LiteDb;

/// <summary>
/// LiteDB 5, every database opened durably by <see cref="LiteDbStore"/>: documents and the shop
/// workload through its typed collections. Managed: nothing to go missing.
/// </summary>
internal sealed class LiteDbAdapter : IStoreAdapter
{
    public string Name => "litedb";

    public string Version() => typeof(LiteDatabase).Assembly.GetName().Version?.ToString(3) ?? "";

    public string MissingLibraryNote => "";

    public IReadOnlyList<DocumentEngineKind> Documents { get; } =
        [new(DocumentEngineCatalog.LiteDb, directory => Task.FromResult<IDocumentEngine>(new LiteDbDocumentEngine(directory)))];

    public IReadOnlyList<OrderPathKind> OrderPaths { get; } =
        [new(Capabilities.Orders.OrderPaths.LiteDb, (directory, size, disk) => Task.FromResult<IOrderPath>(LiteDbOrderPath.Open(directory, size, disk)))];
}
