namespace Voron;

/// <summary>
/// The one write transaction of the store (others wait in <see cref="StorageEnvironment.BeginWrite"/>).
/// Changes are private until <see cref="Commit"/> returns, which happens only once they are durable
/// in the journal. Disposing without committing rolls back. Not thread-safe; may cross awaits.
/// Once <see cref="Commit"/> was called — whether it succeeded or threw — the transaction is
/// done: every later call on it, its trees and its iterators throws <see cref="InvalidOperationException"/>
/// (T7); only <see cref="ReadTransaction.Id"/> and <see cref="ReadTransaction.Dispose()"/> still work.
/// </summary>
public sealed class WriteTransaction : ReadTransaction
{
    private readonly bool _merged;
    private readonly int _operationThread; // a merged operation's: the only thread that may use the view while it runs
    private int _ended; // Ended* below, set once

    private const int Active = 0;
    private const int EndedByCommit = 1;
    private const int EndedByFailedCommit = 2;
    private const int EndedByOperationReturn = 3;

    internal WriteTransaction(StorageEnvironment environment, Transactions.LowLevelTransaction transaction, bool merged = false)
        : base(environment, transaction)
    {
        _merged = merged;
        _operationThread = merged ? System.Environment.CurrentManagedThreadId : 0;
    }

    /// <summary>Opens a named tree, creating it when missing.</summary>
    public Tree CreateTree(string name)
    {
        ThrowIfUnusable();
        return new Tree(this, name, Low.CreateTree(name));
    }

    /// <summary>Deletes a named tree and everything in it; false when there was none.</summary>
    public bool DeleteTree(string name)
    {
        ThrowIfUnusable();
        return Low.DeleteTree(name);
    }

    /// <summary>
    /// Makes the transaction's changes durable (one journal write and flush) and visible to
    /// transactions that begin afterwards. A commit that fails before its journal record is
    /// written (a record over the size limit, say) throws its exception and leaves the store fully
    /// usable; one that fails while or after the record is written fails the store
    /// (<see cref="EnvironmentFailedException"/>, <see cref="StorageEnvironment.IsFailed"/>) until it
    /// is reopened; nothing acknowledged is lost. Either way this transaction is done.
    /// </summary>
    public void Commit()
    {
        ThrowIfUnusable();
        if (_merged)
        {
            throw new InvalidOperationException("This transaction belongs to the transaction merger, which commits it after the operation returns; do not commit or dispose it.");
        }

        try
        {
            Environment.Commit(Low);
            Volatile.Write(ref _ended, EndedByCommit);
        }
        catch
        {
            Volatile.Write(ref _ended, EndedByFailedCommit);
            throw;
        }
    }

    /// <summary>A merged operation returned: its transaction is closed to it from now on (T7).</summary>
    internal void EndOperation() => Volatile.Write(ref _ended, EndedByOperationReturn);

    /// <summary>Ends the transaction, rolling it back unless it committed; a merged operation's transaction is ended by the merger instead.</summary>
    protected override void Dispose(bool disposing)
    {
        if (!_merged)
        {
            base.Dispose(disposing); // a merged transaction is owned and ended by the merger
        }
    }

    internal override void ThrowIfUnusable()
    {
        base.ThrowIfUnusable();
        var ended = Volatile.Read(ref _ended);
        if (ended != Active)
        {
            throw new InvalidOperationException(ended switch
            {
                EndedByCommit => "This write transaction has committed; begin a new one to read or change more.",
                EndedByFailedCommit => "This write transaction's commit failed; begin a new one (the store says whether it can: StorageEnvironment.IsFailed).",
                _ => "This transaction belonged to a merged operation that has already returned: its batch commits without anything done now. " +
                     "A merged operation must do all its work before it returns — await inside it is not supported. " +
                     "Use BeginWriteAsync for a transaction that crosses awaits.",
            });
        }

        if (_merged && System.Environment.CurrentManagedThreadId != _operationThread)
        {
            // M6: the writer runs the operation on one thread; a call from another one (the rest
            // of an async void delegate, a task the delegate started) would race it in the batch.
            throw new InvalidOperationException("This transaction belongs to a merged operation that is running on another thread; " +
                "a merged operation's transaction may be used only by the operation itself, synchronously. " +
                "Use BeginWriteAsync for a transaction that crosses awaits.");
        }
    }
}
