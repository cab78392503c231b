namespace Voron;

/// <summary>
/// The one write transaction of the store (others wait in <see cref="StorageEnvironment.BeginWrite"/>).
/// Changes are private until <see cref="Commit"/> returns, which happens only once they are durable
/// in the journal. Disposing without committing rolls back. Not thread-safe; may cross awaits.
/// </summary>
public sealed class WriteTransaction : ReadTransaction
{
    private readonly bool _merged;
    private bool _committed;

    internal WriteTransaction(StorageEnvironment environment, Transactions.LowLevelTransaction transaction, bool merged = false)
        : base(environment, transaction)
    {
        _merged = merged;
    }

    /// <summary>Opens a named tree, creating it when missing.</summary>
    public Tree CreateTree(string name)
    {
        ThrowIfWritable();
        return new Tree(this, name, Low.CreateTree(name));
    }

    /// <summary>Deletes a named tree and everything in it; false when there was none.</summary>
    public bool DeleteTree(string name)
    {
        ThrowIfWritable();
        return Low.DeleteTree(name);
    }

    /// <summary>
    /// Makes the transaction's changes durable (one journal write and flush) and visible to
    /// transactions that begin afterwards. A failed commit (I/O) leaves the store refusing writes
    /// until reopened (<see cref="EnvironmentFailedException"/>); nothing acknowledged is lost.
    /// </summary>
    public void Commit()
    {
        ThrowIfWritable();
        if (_merged)
        {
            throw new InvalidOperationException("This transaction belongs to the transaction merger, which commits it after the operation returns; do not commit or dispose it.");
        }

        _committed = true;
        Environment.Commit(Low);
    }

    protected override void Dispose(bool disposing)
    {
        if (!_merged)
        {
            base.Dispose(disposing); // a merged transaction is owned and ended by the merger
        }
    }

    internal void ThrowIfWritable()
    {
        ThrowIfDisposed();
        if (_committed)
        {
            throw new InvalidOperationException("This write transaction has committed; begin a new one to make more changes.");
        }
    }
}
