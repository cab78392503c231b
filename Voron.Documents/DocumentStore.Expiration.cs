using Voron.Documents.Storage;

namespace Voron.Documents;

// Expiration's rules (XE1-XE6) and its sweeps are in Storage/ExpirySweeper.cs and
// Storage/ExpiryIndex.cs; this file is the public member.

public sealed partial class DocumentStore
{
    /// <summary>The last failure of the background sweeper, or null (XE5).</summary>
    internal Exception? LastSweepFailure => Sweeper.LastFailure;

    /// <summary>Background sweeps completed (tests wait on it).</summary>
    internal long SweepsCompleted => Sweeper.SweepsCompleted;

    /// <summary>
    /// Deletes every document whose expiry is at or before now (<see cref="DocumentStoreOptions.TimeProvider"/>),
    /// <see cref="ExpirationOptions.BatchSize"/> per transaction, as ordinary deletes (indexes and
    /// collections updated), and returns how many it deleted. A document written again (or given
    /// another expiry) after the sweep read it is left alone. Other sessions' saves proceed between
    /// its transactions. Sweeps do not overlap: a second call waits for the first.
    /// The background sweeper (<see cref="ExpirationOptions.Enabled"/>) calls this every
    /// <see cref="ExpirationOptions.SweepInterval"/>.
    /// </summary>
    public Task<int> SweepExpiredAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        ThrowIfReplica(nameof(SweepExpiredAsync)); // I9: the primary's sweeps arrive as its transactions
        return Sweeper.SweepAsync(cancellationToken);
    }
}
