using Voron.PageFiles;

namespace Voron;

/// <summary>
/// A named file of bytes kept inside the store (the SQLite VFS keeps each database in one), seen
/// through one transaction: reads come from its snapshot, writes go into its write transaction
/// and commit with it. Its 8 KiB blocks are store pages without a header, checksummed in the
/// file's map and journaled as page diffs, so a write that changes a few bytes journals only
/// those bytes. Open one with <see cref="PageFileExtensions.OpenPageFile"/> or
/// <see cref="PageFileExtensions.CreatePageFile"/>. Not thread-safe, like its transaction.
/// </summary>
public sealed class PageFile
{
    private readonly ReadTransaction _transaction;
    private readonly PageFileView _view;

    internal PageFile(ReadTransaction transaction, PageFileView view)
    {
        _transaction = transaction;
        _view = view;
    }

    /// <summary>The file's name in the store.</summary>
    public string Name => _view.Name;

    /// <summary>The file's length in bytes.</summary>
    public long Length
    {
        get
        {
            _transaction.ThrowIfUnusable();
            return _view.Length;
        }
    }

    /// <summary>
    /// Copies the bytes at <paramref name="offset"/> into <paramref name="destination"/> and
    /// returns how many lie before the end of the file; the rest of the destination is zeroed.
    /// A <see cref="CorruptionException"/> names the page whose checksum does not match.
    /// </summary>
    public int Read(long offset, Span<byte> destination)
    {
        _transaction.ThrowIfUnusable();
        return _view.Read(offset, destination);
    }

    /// <summary>Writes <paramref name="source"/> at <paramref name="offset"/>, extending the file as needed (gaps read as zeros).</summary>
    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        RequireWrite();
        _view.Write(offset, source);
    }

    /// <summary>Truncates or extends the file; extended bytes read as zeros.</summary>
    public void SetLength(long length)
    {
        RequireWrite();
        _view.SetLength(length);
    }

    private void RequireWrite()
    {
        _transaction.ThrowIfUnusable();
        if (_transaction is WriteTransaction)
        {
            return;
        }

        throw new InvalidOperationException($"Page file '{Name}' was opened by a read transaction; open it in a write transaction to change it.");
    }
}
