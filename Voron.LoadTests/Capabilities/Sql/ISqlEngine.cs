using Voron.LoadTests.Capabilities.Orders;

namespace Voron.LoadTests.Capabilities.Sql;

/// <summary>
/// One side of the <c>sql</c> suite: SQLite through Microsoft.Data.Sqlite, its databases kept by
/// a store (stock SQLite's files, or one Voron store through Voron.SqliteVfs), every COMMIT
/// durable. The workload creates its tables and runs its statements on <see cref="Connect"/>'s
/// connections; the engine keeps the durable settings.
/// </summary>
internal interface ISqlEngine : IDisposable, ISqlCounted
{
    /// <summary>The report name: one of <see cref="SqlEngines.All"/>.</summary>
    string Name { get; }

    /// <summary>Whether the engine writes a Voron journal, whose bytes and flushes the suite reports (<see cref="JournalBytesWritten"/>, <see cref="ISqlCounted.JournalWrites"/>).</summary>
    bool HasJournal { get; }

    /// <summary>Bytes the Voron journal wrote since the store opened (0 without one).</summary>
    long JournalBytesWritten { get; }

    /// <summary>A new connection to database <paramref name="database"/>, ready for the workload.</summary>
    SqliteConnection Connect(int database);

    /// <summary>
    /// The work an engine defers past its commits, done at the end of each measured round so its
    /// bytes and time count: Voron's data-file flush, WAL's checkpoint.
    /// </summary>
    void Settle();
}
