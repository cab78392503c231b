using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>
/// A document store under the documents experiment: the same workloads through each engine's
/// usual API, every write durable (<see cref="Durability"/> says how).
/// </summary>
internal interface IDocumentEngine : IDisposable
{
    string Name { get; }

    /// <summary>What an acknowledged write survives here, and how the engine is configured for it.</summary>
    string Durability { get; }

    /// <summary>
    /// Whether callers run on dedicated threads with synchronous calls (SQLite through
    /// Microsoft.Data.Sqlite, whose async methods run synchronously; LiteDB, whose transactions
    /// are bound to the thread) rather than as async tasks.
    /// </summary>
    bool UsesThreads { get; }

    /// <summary>
    /// Whether the engine has <paramref name="workload"/> (<see cref="DocumentWorkloads"/>); the
    /// experiment skips the others for it (the engine floor has no queries or updates).
    /// </summary>
    bool Runs(string workload) => true;

    /// <summary>One caller's handle (its own connection where the engine needs one).</summary>
    IDocumentCaller CreateCaller();

    /// <summary>Loads documents in the engine's batched bulk path; returns how many.</summary>
    Task<long> BulkInsertAsync(IEnumerable<Profile> profiles);

    /// <summary>
    /// The work a round's writes leave that the engine would otherwise do in a later round:
    /// Voron's data-file flush (SQLite and LiteDB checkpoint inside their commits).
    /// </summary>
    void EndRound();

    /// <summary>The Voron store under the engine, for the facts that walk its trees (<see cref="VoronSpace"/>); null for the peers.</summary>
    StorageEnvironment? VoronEnvironment => null;
}
