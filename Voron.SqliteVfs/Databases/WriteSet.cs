namespace Voron.SqliteVfs.Databases;

/// <summary>
/// What one write transaction has written so far, in whole 8 KiB blocks: private to the
/// connection holding the write lock until V7 submits it as a <see cref="DatabaseVersion"/>.
/// Its buffers come from the database's <see cref="BlockPool"/> (WB1–WB3).
/// </summary>
internal sealed class WriteSet
{
    private const int BlockSize = PageFile.BlockSize;

    private readonly BlockPool _pool;

    public WriteSet(long length, BlockPool pool)
    {
        Length = length;
        MinLength = length;
        _pool = pool;
    }

    public Dictionary<long, byte[]> Blocks { get; } = [];

    /// <summary>Where the set's buffers come from and go back to (WB1, WB2).</summary>
    public BlockPool Pool => _pool;

    /// <summary>The file's length as the transaction sees it.</summary>
    public long Length { get; private set; }

    /// <summary>The shortest the file got in this transaction.</summary>
    public long MinLength { get; private set; }

    /// <summary>Blocks from here on were truncated away (unless written again).</summary>
    public long CutFromBlock => (MinLength + BlockSize - 1) / BlockSize;

    public bool IsEmpty => Blocks.Count == 0 && Length == MinLength && !Truncated;

    private bool Truncated { get; set; }

    /// <summary>Whether block <paramref name="block"/> reads as zeros because this transaction truncated it away.</summary>
    public bool IsCut(long block) => Truncated && block >= CutFromBlock && !Blocks.ContainsKey(block);

    /// <summary>The writable buffer of a block, filled from <paramref name="current"/> (the snapshot) unless <paramref name="whole"/>.</summary>
    public byte[] Modify(long block, bool whole, Func<long, byte[], bool> current)
    {
        if (!Blocks.TryGetValue(block, out var buffer))
        {
            buffer = _pool.Rent(); // WB3: filled here, or by the caller's whole-block write
            if (!whole)
            {
                if (IsCut(block))
                {
                    Array.Clear(buffer); // truncated away in this transaction: zeros
                }
                else
                {
                    current(block, buffer); // zeros for a hole
                }
            }

            Blocks[block] = buffer;
        }

        return buffer;
    }

    public void Extend(long end) => Length = Math.Max(Length, end);

    /// <summary>Truncates: drops blocks past the end, and zeroes the tail of a block cut in two (read from <paramref name="current"/>).</summary>
    public void Truncate(long size, Func<long, byte[], bool> current)
    {
        if (size >= Length)
        {
            Length = size;
            return;
        }

        var firstDropped = (size + BlockSize - 1) / BlockSize;
        foreach (var (block, buffer) in Blocks)
        {
            if (block >= firstDropped)
            {
                Blocks.Remove(block); // removing the current entry leaves the enumeration valid
                _pool.Return(buffer); // WB1
            }
        }

        if (size % BlockSize != 0)
        {
            var buffer = Modify(size / BlockSize, whole: false, current);
            buffer.AsSpan((int)(size % BlockSize)).Clear();
        }

        Length = size;
        MinLength = Math.Min(MinLength, size);
        Truncated = true;
    }

    /// <summary>How block 0 changed; set by <see cref="DropUnchanged"/>.</summary>
    public Block0Change Block0 { get; private set; }

    /// <summary>
    /// Drops blocks equal to the snapshot's (SQLite rewrites pages it did not change) and says
    /// how block 0 changed (V5). A commit that changes anything carries block 0, so V7 can
    /// give it a new change counter: that is what tells every other connection to drop its cache.
    /// Called once, before the write set is submitted.
    /// </summary>
    public void DropUnchanged(Snapshot snapshot)
    {
        foreach (var (block, bytes) in Blocks)
        {
            var before = snapshot.Find(block, out _); // empty: a hole, zeros
            var drop = block == 0
                ? (Block0 = Classify(before, bytes)) == Block0Change.None
                : Same(before, bytes) && !IsCutInSnapshotTerms(block);
            if (drop)
            {
                Blocks.Remove(block); // removing the current entry leaves the enumeration valid
                _pool.Return(bytes); // WB1
            }
        }

        if (!IsEmpty && !Blocks.ContainsKey(0) && Length > 0)
        {
            var page1 = _pool.Rent();
            snapshot.ReadBlock(0, page1); // WB3: every byte
            Blocks[0] = page1;
            Block0 = Block0Change.CounterOnly;
        }
    }

    /// <summary>WB1: gives every buffer back; the set is never used again (a rollback, a close, a commit that failed before it was submitted).</summary>
    public void Discard()
    {
        foreach (var buffer in Blocks.Values)
        {
            _pool.Return(buffer);
        }

        Blocks.Clear();
    }

    private static bool Same(ReadOnlySpan<byte> before, ReadOnlySpan<byte> after) =>
        before.IsEmpty ? !after.ContainsAnyExcept((byte)0) : before.SequenceEqual(after);

    // A block written again after this transaction truncated it must stay: the version's cut
    // would otherwise zero it.
    private bool IsCutInSnapshotTerms(long block) => Truncated && block >= CutFromBlock;

    private static Block0Change Classify(ReadOnlySpan<byte> before, ReadOnlySpan<byte> after)
    {
        if (before.IsEmpty)
        {
            return after.ContainsAnyExcept((byte)0) ? Block0Change.Content : Block0Change.None; // a new database
        }

        if (!before[..24].SequenceEqual(after[..24]) || !before[40..92].SequenceEqual(after[40..92]) ||
            !before[100..].SequenceEqual(after[100..]))
        {
            return Block0Change.Content;
        }

        if (!before[28..40].SequenceEqual(after[28..40]))
        {
            return Block0Change.HeaderOnly;
        }

        return before[24..28].SequenceEqual(after[24..28]) && before[92..100].SequenceEqual(after[92..100])
            ? Block0Change.None
            : Block0Change.CounterOnly;
    }
}
