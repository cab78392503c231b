using Voron.LoadTests.Stores.LiteDb;
using Voron.LoadTests.Stores.Lmdb;
using Voron.LoadTests.Stores.Sqlite;
using Voron.LoadTests.Stores.Voron;

namespace Voron.LoadTests.Stores;

/// <summary>The stores the suites compare, in the order every report lists their rows: Voron first, then the peers.</summary>
internal static class StoreAdapters
{
    public static IReadOnlyList<IStoreAdapter> All { get; } = [new VoronAdapter(), new SqliteAdapter(), new LiteDbAdapter(), new LmdbAdapter()];
}
