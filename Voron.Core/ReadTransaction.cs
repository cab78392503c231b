using Voron.Transactions;

namespace Voron;

/// <summary>
/// A stable snapshot of the store (T3): what the last transaction committed before it began,
/// however many commits follow. Reads take no locks. Not thread-safe: use it from one caller at
/// a time (it may cross awaits). Dispose it promptly: a live snapshot keeps the pages it can see
/// out of the data file (they stay in memory) until it ends.
/// </summary>
public class ReadTransaction : IDisposable
{
    private bool _disposed;

    internal ReadTransaction(StorageEnvironment environment, LowLevelTransaction transaction)
    {
        Environment = environment;
        Low = transaction;
    }

    /// <summary>For a read transaction, the id of the last transaction it sees; for a write
    /// transaction, the id it commits as.</summary>
    public long Id => Low.Id;

    internal StorageEnvironment Environment { get; }

    internal LowLevelTransaction Low { get; }

    /// <summary>Opens a named tree, or returns null when there is none.</summary>
    public Tree? OpenTree(string name)
    {
        ThrowIfDisposed();
        var tree = Low.OpenTree(name);
        return tree == null ? null : new Tree(this, name, tree);
    }

    /// <summary>The names of every tree, in byte order of their UTF-8 names.</summary>
    public IReadOnlyList<string> GetTreeNames()
    {
        ThrowIfDisposed();
        return Low.TreeNames();
    }

    internal bool IsDisposed => _disposed;

    internal void ThrowIfDisposed()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ObjectDisposedException.ThrowIf(Environment.IsDisposed, Environment);
    }

    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

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
