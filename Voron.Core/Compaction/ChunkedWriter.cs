using Voron.Backup;

namespace Voron.Compaction;

/// <summary>
/// The destination side of <see cref="CompactingCopy"/>: one write transaction at a time, committed
/// and flushed to the data file once it holds <see cref="CompactingCopy.TransactionBytes"/>, so
/// the page versions and the journal a copy keeps stay bounded whatever the store's size.
/// Progress is reported to the meter about every mebibyte.
/// </summary>
internal sealed class ChunkedWriter(StorageEnvironment destination, CopyMeter meter) : IDisposable
{
    private const long ReportBytes = 1L << 20;

    private readonly Dictionary<string, Tree> _trees = new(StringComparer.Ordinal);
    private readonly Dictionary<string, PageFile> _pageFiles = new(StringComparer.Ordinal);
    private WriteTransaction? _transaction;
    private long _transactionBytes;
    private long _pendingUnits;
    private long _pendingBytes;

    /// <summary>The tree <paramref name="name"/> in the current transaction, created when missing.</summary>
    public Tree Tree(string name)
    {
        if (!_trees.TryGetValue(name, out var tree))
        {
            tree = Transaction.CreateTree(name);
            _trees[name] = tree;
        }

        return tree;
    }

    /// <summary>The page file <paramref name="name"/> in the current transaction, created when missing.</summary>
    public PageFile PageFile(string name)
    {
        if (!_pageFiles.TryGetValue(name, out var file))
        {
            file = Transaction.CreatePageFile(name);
            _pageFiles[name] = file;
        }

        return file;
    }

    /// <summary>Counts <paramref name="units"/> entries or blocks of <paramref name="bytes"/> written; commits when the transaction is full.</summary>
    public void Wrote(long units, long bytes)
    {
        _pendingUnits += units;
        _pendingBytes += bytes;
        _transactionBytes += bytes;
        if (_pendingBytes >= ReportBytes)
        {
            Report();
        }

        if (_transactionBytes >= CompactingCopy.TransactionBytes)
        {
            Commit();
        }
    }

    /// <summary>Commits the current transaction (if any) and writes it to the data file.</summary>
    public void Commit()
    {
        Report();
        if (_transaction == null)
        {
            return;
        }

        _transaction.Commit();
        EndTransaction();
        destination.FlushToDataFile();
    }

    public void Dispose() => EndTransaction(); // an uncommitted transaction is rolled back

    private WriteTransaction Transaction => _transaction ??= destination.BeginWrite();

    private void Report()
    {
        meter.Advance(_pendingUnits, _pendingBytes); // throws when cancelled
        _pendingUnits = 0;
        _pendingBytes = 0;
    }

    private void EndTransaction()
    {
        _transaction?.Dispose();
        _transaction = null;
        _trees.Clear();
        _pageFiles.Clear();
        _transactionBytes = 0;
    }
}
