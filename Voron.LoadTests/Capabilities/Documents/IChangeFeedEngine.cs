using Voron.Documents;
using Voron.LoadTests.Experiments.Documents;

namespace Voron.LoadTests.Capabilities.Documents;

/// <summary>
/// A document engine with a change feed, which the <c>documents</c> suite's feed workloads read:
/// Voron.Documents' own (<see cref="DocumentStore.Changes"/>), the only store here that has one.
/// </summary>
internal interface IChangeFeedEngine : IDocumentEngine
{
    /// <summary>The document store whose feed the workloads read.</summary>
    DocumentStore Store { get; }

    /// <summary>Stores one new profile in its own session; returns the version the save gave it (the feed-latency workload matches it to the change).</summary>
    ValueTask<long> SaveAsync(Profile profile);
}
