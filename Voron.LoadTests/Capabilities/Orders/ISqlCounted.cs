using Voron.SqliteVfs;

namespace Voron.LoadTests.Capabilities.Orders;

/// <summary>
/// A path whose SQL runs on <c>Vfs=voron</c>: the experiment reads its database's counters
/// (<see cref="VoronSqliteRegistration.GetStatistics"/>) and the store's journal writes around
/// each run, and reports the write lock's waits, holds and hand-offs per run.
/// </summary>
internal interface ISqlCounted
{
    /// <summary>The database's counters now.</summary>
    VoronSqliteStatistics SqlStatistics();

    /// <summary>Journal records (each one write and one fdatasync) the store wrote since it opened.</summary>
    long JournalWrites { get; }
}
