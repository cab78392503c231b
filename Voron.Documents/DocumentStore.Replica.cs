using System.Diagnostics.Metrics;

namespace Voron.Documents;

// Documents on a read replica (I8–I10 in DocumentStore.cs; the replica itself: RE1–RE7 in
// Voron.Core/Replication/ReplicaFollower.cs).
//
//   primary: session.SaveChangesAsync -> merged transaction T (journal) -> shipped to the destination
//   replica: follower applies T with the primary's id (RE2) -> readers see it -> live feeds wake (CF7)
//   caller:  session.LastTransactionId = T -> replica.WaitForTransactionAsync(T) -> loads see the save
//
// The replica's store holds what the primary wrote, the index trees and the catalog included: an
// index is queryable here once the transaction that marked it ready on the primary is applied. An
// index the replica does not hold (ready) yet is not waited for: a query that needs it is refused
// at once with the planner's error, which says so (Querying/QueryPlanner.cs).

public sealed partial class DocumentStore
{
    /// <summary>
    /// Opens a document store over a read replica of a primary that ships its journal to
    /// <paramref name="destination"/> (<see cref="StorageEnvironment.OpenReplica"/>: the first time
    /// the newest snapshot is restored into <paramref name="directory"/>, then shipped transactions
    /// are applied as they appear). The store owns the replica and closes it on dispose. It only
    /// reads: loads, queries, indexes the primary built, statistics, export and the change feed
    /// work; every write refuses with <see cref="InvalidOperationException"/> saying to write to the
    /// primary. To read your own writes, pass the primary's
    /// <see cref="IAsyncDocumentSession.LastTransactionId"/> to <see cref="WaitForTransactionAsync"/>.
    /// </summary>
    /// <param name="destination">Where the primary ships (its <see cref="StorageEnvironmentOptions.ArchiveDestination"/>).</param>
    /// <param name="directory">The replica's own directory: empty or missing the first time, then the replica resumes there.</param>
    /// <param name="replica">The lineage to follow and how often to poll; null: the defaults.</param>
    /// <param name="options">How the store behaves; <see cref="DocumentStoreOptions.Path"/>, <see cref="DocumentStoreOptions.InMemory"/> and the durability settings are ignored (the replica's), and so is <see cref="ChangeFeedOptions.Enabled"/> (the primary's).</param>
    /// <param name="meterFactory">Where to create the <c>Voron.Documents</c> meter; null: a process-wide meter.</param>
    /// <exception cref="ArgumentException">The options set a <see cref="DocumentStoreOptions.EncryptionKeyProvider"/>: replicas of an encrypted store are not supported yet.</exception>
    /// <exception cref="InvalidOperationException">The destination holds no snapshot to start from; the primary has not opened a document store yet; or its documents need an upgrade only the primary may write.</exception>
    public static DocumentStore OpenReplica(IArchiveDestination destination, string directory, ReplicaOptions? replica = null, DocumentStoreOptions? options = null,
        IMeterFactory? meterFactory = null)
    {
        ArgumentNullException.ThrowIfNull(destination);
        options = options?.Clone() ?? new DocumentStoreOptions();
        options.Validate(requireLocation: false); // the replica's directory is the location
        if (options.EncryptionKeyProvider is not null)
        {
            throw new ArgumentException("DocumentStoreOptions.EncryptionKeyProvider is set: replicas of an encrypted store are not supported yet " +
                "(the replica cannot decrypt the primary's shipped journal). Open the replica without a key, from an unencrypted primary.", nameof(options));
        }

        var environment = StorageEnvironment.OpenReplica(destination, directory, replica);
        try
        {
            return new DocumentStore(environment, ownsEnvironment: true, options, meterFactory);
        }
        catch
        {
            environment.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Completes when transaction <paramref name="transactionId"/> (or a later one) is committed and
    /// visible here, at once if it is already: on a read replica, once the primary's transaction of
    /// that id is applied, so a load or query after it sees a save whose
    /// <see cref="IAsyncDocumentSession.LastTransactionId"/> it was (I10). Forwards to
    /// <see cref="StorageEnvironment.WaitForTransactionAsync"/>.
    /// </summary>
    /// <exception cref="ReplicaStoppedException">The replica stopped below that transaction (a fail-safe check: see <see cref="StorageEnvironment.Replica"/>).</exception>
    /// <exception cref="ObjectDisposedException">The store is disposed.</exception>
    public Task WaitForTransactionAsync(long transactionId, CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        return Environment.WaitForTransactionAsync(transactionId, cancellationToken);
    }

    /// <summary>Whether the store is over a read replica (I8, I9): decided once, when it opens.</summary>
    internal bool IsReplica { get; }

    /// <summary>I9: refuses <paramref name="what"/> on a store over a read replica, before it does anything.</summary>
    internal void ThrowIfReplica(string what)
    {
        if (IsReplica)
        {
            throw ReplicaRefusal(what);
        }
    }

    /// <summary>The refusal of I9: the replica's (RE1), naming what the documents layer was asked to do.</summary>
    internal InvalidOperationException ReplicaRefusal(string what)
    {
        var following = Environment.Replica is { } status ? $" of lineage {status.Lineage} ({status.Destination})" : "";
        return new InvalidOperationException(
            $"{what}: the document store at '{Path}' is a read replica{following}; it accepts no writes (RE1). Write to the primary, and to read " +
            "your own writes here wait for the save's transaction (IAsyncDocumentSession.LastTransactionId) with DocumentStore.WaitForTransactionAsync.");
    }
}
