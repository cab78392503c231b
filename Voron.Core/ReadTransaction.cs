using Voron.Transactions;

namespace Voron;

/// <summary>
/// A stable snapshot of the store (T3): what the last transaction committed before it began,
/// however many commits follow. Reads take no locks. Not thread-safe: use it from one caller at
/// a time (it may cross awaits). Dispose it promptly: a live snapshot keeps the pages it can see
/// out of the data file (they stay in memory) until it ends.
/// </summary>
/// <remarks>
/// Spans returned by reads are valid until the transaction ends; to keep a value past it (or
/// across an await), copy it out: <see cref="Tree.Get"/>, <see cref="Tree.TryGet(ReadOnlySpan{byte}, System.Buffers.IBufferWriter{byte})"/>
/// or <see cref="Tree.GetLease"/>.
/// </remarks>
public class ReadTransaction : IDisposable
{
    private bool _disposed;

    internal ReadTransaction(StorageEnvironment environment, LowLevelTransaction transaction)
    {
        Environment = environment;
        Low = transaction;
    }

    /// <summary>For a read transaction, the id of the last transaction it sees; for a write
    /// transaction, the id it commits as. Readable after the transaction ended.</summary>
    public long Id => Low.Id;

    internal StorageEnvironment Environment { get; }

    internal LowLevelTransaction Low { get; }

    /// <summary>Opens a named tree, or returns null when there is none.</summary>
    public Tree? OpenTree(string name)
    {
        ThrowIfUnusable();
        var tree = Low.OpenTree(name);
        return tree == null ? null : new Tree(this, name, tree);
    }

    /// <summary>The names of every tree, in byte order of their UTF-8 names.</summary>
    public IReadOnlyList<string> GetTreeNames()
    {
        ThrowIfUnusable();
        return Low.TreeNames();
    }

    internal bool IsDisposed => _disposed;

    /// <summary>
    /// Every call on the transaction, its trees and its iterators checks this first (T7): a
    /// disposed transaction, or one whose store was disposed, throws <see cref="ObjectDisposedException"/>;
    /// a write transaction that has committed, or a merged operation's transaction after the
    /// operation returned, throws <see cref="InvalidOperationException"/>.
    /// </summary>
    internal virtual void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ObjectDisposedException.ThrowIf(Environment.IsDisposed, Environment);
    }

    /// <summary>
    /// Ends the transaction and releases its snapshot; a write transaction that did not commit
    /// is rolled back. Calling it again does nothing.
    /// </summary>
    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Ends the transaction once (see <see cref="Dispose()"/>); <paramref name="disposing"/> is not used, as there is no finalizer.</summary>
    protected virtual void Dispose(bool disposing)
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        Environment.ExitTransaction(Low);
    }
}
