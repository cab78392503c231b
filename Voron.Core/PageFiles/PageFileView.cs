using Voron.Transactions;
using Voron.Trees;

namespace Voron.PageFiles;

/// <summary>
/// One page file (FORMAT in PageFileFormat.cs) as one transaction sees it: reads from its
/// snapshot, writes into its write transaction. Not thread-safe, like the transaction.
/// </summary>
/// <remarks>
/// Spans from <see cref="TryGetBlock"/> point into page buffers or the data file's mapping: valid
/// until the transaction ends, and in a write transaction only until the next write to the file.
/// </remarks>
internal sealed class PageFileView
{
    private const int BlockSize = PageFileFormat.BlockSize;

    private readonly LowLevelTransaction _transaction;
    private readonly BTree _map;

    private PageFileView(LowLevelTransaction transaction, BTree map, string name, long length, long sequence)
    {
        _transaction = transaction;
        _map = map;
        Name = name;
        Length = length;
        Sequence = sequence;
    }

    public string Name { get; }

    /// <summary>The file's length in bytes.</summary>
    public long Length { get; private set; }

    /// <summary>The last writer's commit sequence (opaque to the store).</summary>
    public long Sequence { get; private set; }

    private string DataFile => _transaction.DataFilePath;

    /// <summary>A sealed store's page file: 44-byte entries, blocks sealed (PF2, PF5).</summary>
    private bool Sealed => _transaction.IsSealed;

    /// <summary>Names the file in corruption messages (made only when one is raised).</summary>
    private string Owner => $"page file '{Name}'";

    /// <summary>The page file as <paramref name="transaction"/> sees it, or null when there is none.</summary>
    public static PageFileView? Open(LowLevelTransaction transaction, string name)
    {
        PageFileFormat.ValidateName(name);
        var map = transaction.OpenTree(PageFileFormat.TreeName(name));
        if (map == null)
        {
            return null;
        }

        if (!map.TryGet(PageFileFormat.MetadataKey, out var metadata))
        {
            throw PageFileFormat.Corrupt(transaction.DataFilePath, name, "rule PF1: the metadata entry is missing");
        }

        var (length, sequence) = PageFileFormat.ReadMetadata(metadata, transaction.DataFilePath, name);
        return new PageFileView(transaction, map, name, length, sequence);
    }

    /// <summary>Opens the page file, creating it (empty) when missing. Write transactions only.</summary>
    public static PageFileView OpenOrCreate(LowLevelTransaction transaction, string name)
    {
        var existing = Open(transaction, name);
        if (existing != null)
        {
            return existing;
        }

        var view = new PageFileView(transaction, transaction.CreateTree(PageFileFormat.TreeName(name)), name, 0, 0);
        view.SaveMetadata();
        return view;
    }

    /// <summary>Deletes the page file and frees its pages; false when there was none.</summary>
    public static bool Delete(LowLevelTransaction transaction, string name)
    {
        var view = Open(transaction, name);
        if (view == null)
        {
            return false;
        }

        view.SetLength(0);
        return transaction.DeleteTree(PageFileFormat.TreeName(name));
    }

    /// <summary>The names of every page file, in byte order of their UTF-8 names.</summary>
    public static List<string> Names(LowLevelTransaction transaction) =>
        [.. transaction.TreeNames().Where(PageFileFormat.IsPageFileTree).Select(t => t[PageFileFormat.TreePrefix.Length..])];

    /// <summary>
    /// The bytes of block <paramref name="block"/> (8 KiB), or false when the block is a hole
    /// (it reads as zeros). Checked against its checksum on first read from the data file (PF3).
    /// </summary>
    public bool TryGetBlock(long block, out ReadOnlySpan<byte> bytes)
    {
        Span<byte> key = stackalloc byte[PageFileFormat.BlockKeySize];
        PageFileFormat.WriteBlockKey(key, block);
        if (!_map.TryGet(key, out var value))
        {
            bytes = default;
            return false;
        }

        var (page, checksum) = PageFileFormat.ReadEntry(value, DataFile, Name, block, Sealed, out var nonceAndTag);
        bytes = Sealed ? _transaction.GetSealedBlock(page, checksum, nonceAndTag, Owner) : _transaction.GetRawPage(page, checksum, Owner); // PF5
        return true;
    }

    /// <summary>
    /// Copies the bytes at <paramref name="offset"/> into <paramref name="destination"/>; returns
    /// how many lay below <see cref="Length"/>. The rest of <paramref name="destination"/> is zeroed.
    /// </summary>
    public int Read(long offset, Span<byte> destination)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        var available = (int)Math.Clamp(Length - offset, 0, destination.Length);
        destination[available..].Clear();
        var done = 0;
        while (done < available)
        {
            var position = offset + done;
            var block = position / BlockSize;
            var inBlock = (int)(position % BlockSize);
            var count = Math.Min(available - done, BlockSize - inBlock);
            var target = destination.Slice(done, count);
            if (TryGetBlock(block, out var bytes))
            {
                bytes.Slice(inBlock, count).CopyTo(target);
            }
            else
            {
                target.Clear();
            }

            done += count;
        }

        return available;
    }

    /// <summary>Writes <paramref name="source"/> at <paramref name="offset"/>, extending the file when it ends past <see cref="Length"/>.</summary>
    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        var done = 0;
        while (done < source.Length)
        {
            var position = offset + done;
            var inBlock = (int)(position % BlockSize);
            var count = Math.Min(source.Length - done, BlockSize - inBlock);
            WriteIntoBlock(position / BlockSize, inBlock, source.Slice(done, count));
            done += count;
        }

        if (offset + source.Length > Length)
        {
            Length = offset + source.Length;
            SaveMetadata();
        }
    }

    /// <summary>Sets the length: shrinking frees the blocks past the end and zeroes the tail of the last one.</summary>
    public void SetLength(long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (length < Length)
        {
            var firstFreed = (length + BlockSize - 1) / BlockSize;
            FreeBlocksFrom(firstFreed);
            var tail = (int)(length % BlockSize);
            if (tail != 0 && TryGetBlock(length / BlockSize, out _))
            {
                // A later extension must read zeros here, as a file system would give.
                WriteIntoBlock(length / BlockSize, tail, new byte[BlockSize - tail]);
            }
        }

        if (length != Length)
        {
            Length = length;
            SaveMetadata();
        }
    }

    /// <summary>Records the writer's commit sequence with the file.</summary>
    public void SetSequence(long sequence)
    {
        if (sequence != Sequence)
        {
            Sequence = sequence;
            SaveMetadata();
        }
    }

    /// <summary>
    /// Integrity: hands every block's page to <paramref name="claim"/> and checks PF2 and the
    /// block's checksum (PF3) whether or not the page was read before.
    /// </summary>
    public void Verify(Action<long, int, string> claim)
    {
        var cursor = _map.OpenCursor();
        for (var more = cursor.SeekFirst(); more; more = cursor.MoveNext())
        {
            if (cursor.Key.SequenceEqual(PageFileFormat.MetadataKey))
            {
                continue;
            }

            var block = PageFileFormat.ReadBlockKey(cursor.Key, DataFile, Name);
            if (block >= (Length / BlockSize) + (Length % BlockSize == 0 ? 0 : 1)) // divided, not multiplied: an on-disk block near 2^63 / BlockSize would wrap
            {
                throw PageFileFormat.Corrupt(DataFile, Name, $"rule PF2: block {block} lies past the file's length {Length}");
            }

            var (page, checksum) = PageFileFormat.ReadEntry(cursor.Value, DataFile, Name, block, Sealed, out var nonceAndTag);
            claim(page, 1, $"{Owner} (block {block})");
            var actual = Crc32C.Compute(_transaction.GetRawPage(page, checksum, Owner));
            if (actual != checksum)
            {
                throw new CorruptionException(DataFile, page * BlockSize, $"rule PF3: raw page {page} of {Owner} has checksum 0x{actual:X8}, its map entry says 0x{checksum:X8}");
            }

            if (Sealed)
            {
                _transaction.GetSealedBlock(page, checksum, nonceAndTag, Owner); // PF3: the seal opens
            }
        }
    }

    private void WriteIntoBlock(long block, int inBlock, ReadOnlySpan<byte> bytes)
    {
        if (Sealed)
        {
            WriteIntoSealedBlock(block, inBlock, bytes);
            return;
        }

        Span<byte> key = stackalloc byte[PageFileFormat.BlockKeySize];
        Span<byte> entry = stackalloc byte[PageFileFormat.EntrySize];
        PageFileFormat.WriteBlockKey(key, block);
        long page;
        Span<byte> target;
        if (_map.TryGet(key, out var value))
        {
            (page, var checksum) = PageFileFormat.ReadEntry(value, DataFile, Name, block);
            target = _transaction.ModifyRawPage(page, checksum, Owner, overwrite: bytes.Length == BlockSize);
        }
        else
        {
            target = _transaction.AllocateRawPage(out page);
        }

        bytes.CopyTo(target[inBlock..]);
        PageFileFormat.WriteEntry(entry, page, Crc32C.Compute(target));
        _map.Put(key, entry);
    }

    /// <summary>PF6: changes the block's plaintext, seals it again into its raw page, and records the seal in its entry.</summary>
    private void WriteIntoSealedBlock(long block, int inBlock, ReadOnlySpan<byte> bytes)
    {
        Span<byte> key = stackalloc byte[PageFileFormat.BlockKeySize];
        Span<byte> entry = stackalloc byte[PageFileFormat.SealedEntrySize];
        PageFileFormat.WriteBlockKey(key, block);
        long page;
        Span<byte> plaintext;
        if (_map.TryGet(key, out var value))
        {
            (page, var checksum) = PageFileFormat.ReadEntry(value, DataFile, Name, block, sealedStore: true, out var nonceAndTag);
            plaintext = _transaction.ModifySealedBlock(page, checksum, nonceAndTag, Owner, overwrite: bytes.Length == BlockSize);
        }
        else
        {
            plaintext = _transaction.AllocateSealedBlock(out page);
        }

        bytes.CopyTo(plaintext[inBlock..]);
        Span<byte> seal = stackalloc byte[Sealing.SealFormat.BlockSealSize];
        var sealedChecksum = _transaction.SealBlock(page, seal, Owner);
        PageFileFormat.WriteSealedEntry(entry, page, sealedChecksum, seal);
        _map.Put(key, entry);
    }

    private void FreeBlocksFrom(long firstBlock)
    {
        Span<byte> start = stackalloc byte[PageFileFormat.BlockKeySize];
        PageFileFormat.WriteBlockKey(start, firstBlock);
        var doomed = new List<(byte[] Key, long Page)>();
        var cursor = _map.OpenCursor();
        for (var more = cursor.Seek(start); more; more = cursor.MoveNext())
        {
            var block = PageFileFormat.ReadBlockKey(cursor.Key, DataFile, Name);
            doomed.Add((cursor.Key.ToArray(), PageFileFormat.ReadEntry(cursor.Value, DataFile, Name, block, Sealed, out _).Page));
        }

        // The cursor is dead once the tree changes (BT10): collect first, then delete.
        foreach (var (key, page) in doomed)
        {
            _map.Delete(key);
            _transaction.FreeRawPage(page);
        }
    }

    private void SaveMetadata()
    {
        Span<byte> value = stackalloc byte[PageFileFormat.MetadataSize];
        PageFileFormat.WriteMetadata(value, Length, Sequence);
        _map.Put(PageFileFormat.MetadataKey, value);
    }
}
