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
/// <example>
/// Writes that cover whole blocks replace them; smaller ones journal only the bytes they change:
/// <code>
/// using var tx = env.BeginWrite();
/// var file = tx.CreatePageFile("images/logo");
/// file.Write(2L * PageFile.BlockSize, block); // block: PageFile.BlockSize bytes, the file's third block
/// tx.Commit();
/// </code>
/// </example>
public sealed class PageFile
{
    /// <summary>
    /// The size of a block, in bytes (8 KiB, <see cref="Constants.PageSize"/>): block <c>b</c>
    /// holds the file's bytes <c>[b * BlockSize, (b + 1) * BlockSize)</c> in one store page.
    /// </summary>
    public const int BlockSize = PageFileFormat.BlockSize;

    /// <summary>
    /// The longest page-file name, in UTF-8 bytes (246: the name of the tree that holds the file
    /// adds a prefix to it and must fit <see cref="Constants.MaxTreeNameSize"/>).
    /// </summary>
    public const int MaxNameBytes = PageFileFormat.MaxNameBytes;

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

    // Internal to the SQLite VFS (Voron.SqliteVfs reaches them through InternalsVisibleTo; the
    // reasons are listed next to that line in Voron.Core.csproj).

    /// <summary>The last writer's commit sequence, stored with the file (opaque to the store; format field Sequence).</summary>
    internal long Sequence => _view.Sequence;

    /// <summary>Records the writer's commit sequence with the file, in this write transaction.</summary>
    internal void SetSequence(long sequence)
    {
        RequireWrite();
        _view.SetSequence(sequence);
    }

    /// <summary>
    /// The bytes of block <paramref name="block"/> without a copy, or false for a hole (zeros).
    /// No usability check (the caller owns the transaction): the span points into a page buffer or
    /// the data file's mapping, valid until the transaction ends (in a write transaction, until
    /// the next write to the file).
    /// </summary>
    internal bool TryGetBlock(long block, out ReadOnlySpan<byte> bytes) => _view.TryGetBlock(block, out bytes);

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
