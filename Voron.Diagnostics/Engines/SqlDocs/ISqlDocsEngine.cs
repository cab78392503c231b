
namespace Voron.Diagnostics.Engines.SqlDocs;

/// <summary>
/// One side of the <c>sqldocs</c> experiment: the same profile documents, a SQL table of purchases
/// that refer to them, and two indexes (city, age), reached through one front door. Every write is
/// durable (<see cref="Durability"/> says how).
/// </summary>
internal interface ISqlDocsEngine : IDisposable
{
    string Name { get; }

    /// <summary>What an acknowledged write survives here, and how the engine is configured for it.</summary>
    string Durability { get; }

    /// <summary>
    /// Whether callers block (Microsoft.Data.Sqlite, whose async methods run synchronously), so
    /// each runs on a thread of its own (the scenario's <c>WithThreadPerCopy</c>), rather than as an
    /// async task (the document API).
    /// </summary>
    bool UsesThreads { get; }

    /// <summary>One caller's handle: its own connection and prepared commands, or its own sessions.</summary>
    ISqlDocsCaller CreateCaller();

    /// <summary>
    /// The work a round's writes leave for later, done inside the round's measured span (the
    /// scenario's settle): Voron's data-file flush, SQLite's WAL checkpoint.
    /// </summary>
    void Settle();

    /// <summary>The query plan of each SQL workload (workload name to plan text); empty for the document API.</summary>
    IReadOnlyDictionary<string, string> Plans();
}
