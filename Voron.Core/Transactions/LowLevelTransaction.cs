using System.Text;
using Voron.Allocation;
using Voron.Header;
using Voron.Journal;
using Voron.Journal.Diff;
using Voron.Paging;
using Voron.Trees;

namespace Voron.Transactions;

// Design notes — transactions.
//
// A transaction is an object, not bound to a thread: it may be used across awaits, by one
// caller at a time (transactions are not thread-safe; the environment is).
//
//   state machine                       method
//   (none) --begin--> Active            StorageEnvironment.BeginRead / BeginWrite
//   Active --commit--> Committed        WriteTransaction.Commit (write only)
//   Active --dispose--> Disposed        Dispose (a write transaction not committed rolls back)
//   Committed --dispose--> Disposed     Dispose
//   Active --commit fails--> Failed     WriteTransaction.Commit (every later call throws, T7)
//   Active --operation returns--> Ended WriteTransaction.EndOperation (a merged operation's view, M6)
//   Active --environment disposed-->    every later call throws ObjectDisposedException (LC3)
//
// Invariants:
//   T1. At most one write transaction is active (StorageEnvironment._writeLock).
//   T2. A write transaction never writes the data file: modified pages are private copies
//       (_dirty) until commit journals them and publishes them to the page table, or (pages it
//       created, in a large commit) writes them in place before its record (IP1–IP4).
//   T3. A read transaction sees exactly the state of the last transaction committed before it
//       began (its CommittedState), however many commits follow.
//   T4. Commit returns only after the journal record is durable; the new state becomes visible
//       to new transactions only after that (PageTable PT2).
//   T5. A page's checksum is stamped once per dirty page, at commit (PrepareCommit), so the
//       journal and the data file carry it; edits before that (ModifyPage, the tree's inserts,
//       splits and shares) never compute one, however often they touch the page. A modified
//       page's checksum is updated from its previous version's and the blocks that changed
//       (StampChecksum); a created one is computed whole.
//   T6. A write transaction that starts while the previous one is still being journaled (async
//       commit) reads that one's pages first; it commits only after the previous one is durable,
//       and never if the previous one failed (Transactions/CommitPipeline.cs: C1, C4).
//   T7. A transaction is usable only while it is live: once disposed, once an explicit write
//       transaction's Commit was called (whether it succeeded or not), and once a merged
//       operation's delegate returned, every call on it, its trees and its iterators throws
//       (ReadTransaction.ThrowIfUnusable); and once PrepareCommit has stamped the pages, the
//       low-level transaction refuses every change. So no page a commit journals or publishes
//       (PT1) is written after it was prepared.
//   T8. A raw page (a page file's block, PageFiles/PageFileFormat.cs) has no page header: T5
//       does not stamp it and the pager does not validate it as a header page; its checksum is
//       kept in the page file's map entry (LowLevelTransaction.RawPages.cs).
//   T9. A page this transaction created is journaled as a diff against zeros unless it is a
//       tree page or overflow run whose zero bytes are at most a quarter of it: that one is
//       journaled whole (IsDenseNewPage). Either decodes to the same bytes (no format change).
//   T10. In a sealed store a page that existed before is journaled whole, never as a diff against
//       its previous version. Replay applies such a diff on top of whatever the data file holds
//       there, which for a plaintext page may be torn (old and new sectors mixed) and still comes
//       right; a torn sealed page cannot be opened, so the diff would have no base. A full image
//       needs none: replay seals and writes it (PG7). New pages keep T9 (their base is zeros).

/// <summary>The page-level transaction under <see cref="ReadTransaction"/> and <see cref="WriteTransaction"/>.</summary>
internal sealed partial class LowLevelTransaction : IPageAccess, IAllocatorPages
{
    private readonly TransactionSeams _seams;
    private readonly Dictionary<long, byte[]>? _dirty;
    private readonly PageAllocator? _allocator;
    private readonly Dictionary<string, BTree> _openTrees = new(StringComparer.Ordinal);
    private readonly HashSet<string> _createdTrees = new(StringComparer.Ordinal);
    private readonly IReadOnlyDictionary<long, byte[]>? _previous;
    private readonly HashSet<long>? _allocated; // pages this transaction created: journaled as diffs against zeros
    private readonly List<long>? _freed; // first pages of the pages and runs this transaction freed (PageTable PT5)
    private BTree? _root;
    private bool _prepared;
    private long _dirtyBytes;

    /// <summary>
    /// Starts a transaction on <paramref name="committed"/>. A write transaction of the async
    /// commit pipeline may start on a <paramref name="previous"/> transaction that is still being
    /// journaled: its pages are read before the page table's (T6).
    /// </summary>
    public LowLevelTransaction(TransactionSeams seams, CommittedState committed, bool writable, PreparedCommit? previous = null)
    {
        _seams = seams;
        Committed = committed;
        IsWritable = writable;
        _previous = previous?.PagesByNumber;
        if (writable)
        {
            _dirty = [];
            _allocated = [];
            _freed = [];
            _allocator = new PageAllocator(this, committed.FreeSpace, committed.State.NextPageNumber, committed.State.FreeSpaceRoot,
                Id, seams.AllocationPolicy(committed.FreeSpace.Cursor), seams.ReleaseHorizon);
        }
    }

    public CommittedState Committed { get; }

    /// <summary>The generation it began in (TransactionRegistry.Generations.cs): retired scratch slots it may read wait for it (PageTable PT7).</summary>
    internal long Generation { get; init; }

    /// <summary>The id this transaction reads at (read) or will commit as (write).</summary>
    public long Id => IsWritable ? Committed.TxId + 1 : Committed.TxId;

    public bool IsWritable { get; }

    public string DataFilePath => _seams.Pager.Path;

    internal int DirtyPageCount => _dirty?.Count ?? 0;

    /// <summary>Bytes of the pages this transaction holds (an overflow run counts all its pages): what the merger bounds (M8).</summary>
    internal long DirtyBytes => _dirtyBytes;

    private void SetDirty(Dictionary<long, byte[]> dirty, long pageNumber, byte[] buffer)
    {
        if (dirty.TryGetValue(pageNumber, out var replaced))
        {
            _dirtyBytes -= replaced.Length;
        }

        dirty[pageNumber] = buffer;
        _dirtyBytes += buffer.Length;
    }

    private void RemoveDirty(Dictionary<long, byte[]> dirty, long pageNumber)
    {
        if (dirty.Remove(pageNumber, out var removed))
        {
            _dirtyBytes -= removed.Length;
        }
    }

    internal PageAllocator Allocator => _allocator ?? throw new InvalidOperationException("A read transaction has no allocator.");

    /// <summary>The root tree: the catalog of named trees.</summary>
    internal BTree Root => _root ??= new BTree(this, Committed.State.RootTree);

    public ReadOnlySpan<byte> GetPage(long pageNumber)
    {
        if (_dirty != null && _dirty.TryGetValue(pageNumber, out var own))
        {
            return own;
        }

        return GetPreviousVersion(pageNumber);
    }

    /// <summary>The page as it was before this transaction: the version its page diff is computed against.</summary>
    private ReadOnlySpan<byte> GetPreviousVersion(long pageNumber)
    {
        if (_previous != null && _previous.TryGetValue(pageNumber, out var inFlight))
        {
            return inFlight;
        }

        if (_seams.PageTable.TryGet(pageNumber, Committed.TxId, out var committed))
        {
            return committed;
        }

        return IsRaw(pageNumber) ? _seams.Pager.ReadRawPageUnverified(pageNumber) : _seams.Pager.ReadPage(pageNumber);
    }

    public Span<byte> ModifyPage(long pageNumber)
    {
        var dirty = RequireWritable();
        if (dirty.TryGetValue(pageNumber, out var own))
        {
            return own;
        }

        var current = GetPage(pageNumber);
        if (current.Length != Constants.PageSize)
        {
            throw new InvalidOperationException($"Page {pageNumber} starts an overflow run; runs are replaced, never modified in place.");
        }

        // Page buffers live on the pinned object heap: they stay alive in the page table until the
        // data file has them (a flush threshold's worth, seconds under load), and on the ordinary
        // heap each would be copied twice by promotion and their bytes would set off a gen-0
        // collection every few milliseconds, a large share of the time under merged writes
        // (docs/results/2026-12-06-code-comment-measurements.md).
        // Those that left the page table come back through the pool (PageBufferPool.cs, PB1).
        var copy = _seams.PageTable.Buffers.Rent();
        current.CopyTo(copy);
        SetDirty(dirty, pageNumber, copy);
        return copy;
    }

    /// <summary>A page the data file's mapping holds, not a version in memory (BTreeCursor keeps its address).</summary>
    public bool IsMapped(ReadOnlySpan<byte> page, out object? keepAlive)
    {
        keepAlive = null;
        if (_seams.Pager.Contains(page))
        {
            return true;
        }

        if (_seams.Pager.IsSealed && Sealing.SealedPages.TryGetOwner(page, out var owner))
        {
            keepAlive = owner; // OP5
            return true;
        }

        return false;
    }

    /// <summary>BT12's question: the page is in <see cref="_dirty"/> (modified or created here).</summary>
    public bool HoldsWritableCopy(long pageNumber) => _dirty != null && _dirty.ContainsKey(pageNumber);

    public Span<byte> AllocatePages(int pageCount, out long pageNumber)
    {
        RequireWritable();
        pageNumber = Allocator.Allocate(pageCount);
        return CreatePage(pageNumber, pageCount);
    }

    public Span<byte> AllocatePagesToFill(int pageCount, int filledBytes, out long pageNumber)
    {
        RequireWritable();
        pageNumber = Allocator.Allocate(pageCount);
        return CreatePage(pageNumber, pageCount, filledBytes);
    }

    public Span<byte> CreatePage(long pageNumber, int pageCount) => CreatePage(pageNumber, pageCount, PageHeader.Size);

    /// <summary>A new page or run whose bytes [64, <paramref name="filledBytes"/>) the caller writes; every other byte is zero.</summary>
    private Span<byte> CreatePage(long pageNumber, int pageCount, int filledBytes)
    {
        var dirty = RequireWritable();
        var buffer = _seams.PageTable.Buffers.Rent(pageCount); // as in ModifyPage; runs too (PB2); recycled bytes are anything
        if ((uint)(filledBytes - PageHeader.Size) > (uint)(buffer.Length - PageHeader.Size))
        {
            throw new ArgumentOutOfRangeException(nameof(filledBytes), filledBytes, $"A {pageCount}-page buffer is filled from byte {PageHeader.Size} to at most its end.");
        }

        buffer.AsSpan(0, PageHeader.Size).Clear();
        buffer.AsSpan(filledBytes).Clear();

        PageHeader.SetPageNumber(buffer, pageNumber);
        SetDirty(dirty, pageNumber, buffer);
        _allocated!.Add(pageNumber);
        return buffer;
    }

    public void FreePages(long pageNumber, int pageCount)
    {
        var dirty = RequireWritable();
        Allocator.Free(pageNumber, pageCount);
        RemoveDirty(dirty, pageNumber);
        _allocated!.Remove(pageNumber);
        _freed!.Add(pageNumber);
    }

    /// <summary>The allocator freed one of its own pages: drop this transaction's copy and publish a tombstone (PageTable PT5).</summary>
    public void DiscardPage(long pageNumber)
    {
        RemoveDirty(RequireWritable(), pageNumber);
        _allocated!.Remove(pageNumber);
        _freed!.Add(pageNumber);
    }

    /// <summary>A named tree as this transaction sees it, or null when there is none.</summary>
    public BTree? OpenTree(string name)
    {
        if (_openTrees.TryGetValue(name, out var open))
        {
            return open;
        }

        var key = TreeNameKey(name);
        if (!Root.TryGet(key, out var stateBytes))
        {
            return null;
        }

        var tree = new BTree(this, TreeState.ReadFrom(stateBytes, DataFilePath, 0));
        _openTrees[name] = tree;
        return tree;
    }

    /// <summary>Opens a named tree, creating it (empty) when missing.</summary>
    public BTree CreateTree(string name)
    {
        RequireWritable();
        var tree = OpenTree(name);
        if (tree != null)
        {
            return tree;
        }

        tree = new BTree(this, default);
        _openTrees[name] = tree;
        _createdTrees.Add(name);
        return tree;
    }

    /// <summary>Deletes a named tree and frees its pages; false when there was none.</summary>
    public bool DeleteTree(string name)
    {
        RequireWritable();
        var tree = OpenTree(name);
        if (tree == null)
        {
            return false;
        }

        tree.DeleteAll();
        _openTrees.Remove(name);
        _createdTrees.Remove(name);
        Root.Delete(TreeNameKey(name));
        return true;
    }

    /// <summary>The names of every tree, in byte order of their UTF-8 names.</summary>
    public List<string> TreeNames()
    {
        var names = new List<string>();
        var cursor = Root.OpenCursor();
        for (var more = cursor.SeekFirst(); more; more = cursor.MoveNext())
        {
            names.Add(Encoding.UTF8.GetString(cursor.Key));
        }

        if (IsWritable)
        {
            foreach (var created in _createdTrees)
            {
                if (!names.Contains(created))
                {
                    names.Add(created);
                }
            }

            names.Sort((a, b) => TreeNameKey(a).AsSpan().SequenceCompareTo(TreeNameKey(b)));
        }

        return names;
    }

    /// <summary>
    /// Writes every changed tree state into the catalog, stamps page checksums (T5) and builds
    /// the journal entries — page diffs when <paramref name="diffs"/> is on (a page this
    /// transaction created is diffed against zeros, a modified one against its previous version,
    /// and a page whose diff would not be smaller is stored whole). Null when the transaction
    /// changed nothing. After this the transaction must not change again.
    /// </summary>
    public PreparedCommit? PrepareCommit(bool diffs)
    {
        var dirty = RequireWritable();
        Span<byte> stateBytes = stackalloc byte[TreeState.Size];
        foreach (var (name, tree) in _openTrees)
        {
            var key = TreeNameKey(name);
            var changed = _createdTrees.Contains(name) || !Root.TryGet(key, out var stored) ||
                          TreeState.ReadFrom(stored, DataFilePath, 0) != tree.State;
            if (changed)
            {
                tree.State.WriteTo(stateBytes);
                Root.Put(key, stateBytes);
            }
        }

        var pages = new List<KeyValuePair<long, byte[]>>(dirty.Count);
        foreach (var (pageNumber, bytes) in dirty)
        {
            if (!IsRaw(pageNumber))
            {
                StampChecksum(pageNumber, bytes); // a raw page's checksum is in its page file's map (T8)
            }

            pages.Add(new(pageNumber, bytes));
        }

        if (pages.Count == 0 && _freed!.Count == 0)
        {
            return null;
        }

        pages.Sort((a, b) => a.Key.CompareTo(b.Key));
        _prepared = true; // T7: the pages below are what the journal and the page table get
        var state = new EnvironmentState(Root.State, Allocator.NextPageNumber, Allocator.DirectoryPage);
        byte[]? arena = null;
        ulong[]? units = null; // FL10: without diffs every unit of every page is written
        var journalPages = diffs ? DiffPages(pages, out arena, out units) : pages.ConvertAll(p => new JournalPage(p.Key, p.Value)).ToArray();
        // A page freed and allocated again by this transaction has a version, not a tombstone.
        long[] freed = [.. _freed!.Where(p => !dirty.ContainsKey(p)).Distinct()];
        return new PreparedCommit(Id, state, Allocator.ToSummary(), pages, dirty, journalPages, freed, arena, units, _allocated);
    }

    /// <summary>
    /// T5: a page this transaction modified (not one it created) gets its checksum from its
    /// previous version's stamp and the 64-byte blocks that changed (PageHeader.UpdatedChecksum),
    /// which costs in proportion to the change instead of a CRC of 8 KiB; a created page or run is
    /// checksummed whole. The previous version's stamp is its bytes' (P4 when read from the data
    /// file, SC1 from the scratch file, stamped at its own commit in memory).
    /// </summary>
    private void StampChecksum(long pageNumber, byte[] bytes)
    {
        if (bytes.Length != Constants.PageSize || _allocated!.Contains(pageNumber))
        {
            PageHeader.StampChecksum(bytes);
            return;
        }

        var checksum = PageHeader.UpdatedChecksum(GetPreviousVersion(pageNumber)[..Constants.PageSize], bytes);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(PageHeader.ChecksumOffset), checksum);
    }

    /// <summary>
    /// The journal entries of <paramref name="pages"/>, and (FL10) the 4 KiB units of each that
    /// the flush must write: those a diff against the previous version touches; every unit of a
    /// page stored whole and of a page this transaction created (its diff is against zeros, not
    /// against what the data file holds at that place: a freed page's old bytes, or nothing).
    /// </summary>
    private JournalPage[] DiffPages(List<KeyValuePair<long, byte[]>> pages, out byte[] arena, out ulong[] units)
    {
        long total = 0;
        foreach (var (_, bytes) in pages)
        {
            total += bytes.Length;
        }

        // One arena for every diff of the commit; a diff is never longer than its page (else the
        // full image is stored), so the arena cannot overflow. Rented: a fresh one per commit was
        // a large-object allocation that set off a full GC every few dozen commits.
        arena = PreparedCommit.RentDiffArena(checked((int)total));
        var used = 0;
        var result = new JournalPage[pages.Count];
        units = new ulong[pages.Count];
        for (var i = 0; i < pages.Count; i++)
        {
            var (pageNumber, current) = pages[i];
            var isNew = _allocated!.Contains(pageNumber);
            units[i] = Flushing.FlushUnits.All;
            if (isNew && IsDenseNewPage(pageNumber, current))
            {
                result[i] = new JournalPage(pageNumber, current);
                continue;
            }

            if (!isNew && _seams.Pager.IsSealed)
            {
                result[i] = new JournalPage(pageNumber, current); // T10
                continue;
            }

            var output = arena.AsSpan(used, current.Length);
            var length = isNew ? PageDiff.ComputeAgainstZeros(current, output) : PageDiff.Compute(GetPreviousVersion(pageNumber)[..current.Length], current, output);
            if (length < 0)
            {
                result[i] = new JournalPage(pageNumber, current);
                continue;
            }

            if (!isNew)
            {
                units[i] = Flushing.FlushUnits.FromDiff(output[..length], current.Length);
            }

            var encoding = isNew ? JournalPageEncoding.DiffAgainstZeros : JournalPageEncoding.DiffAgainstPrevious;
            result[i] = new JournalPage(pageNumber, arena.AsMemory(used, length), encoding, current.Length / Constants.PageSize);
            used += length;
        }

        return result;
    }

    /// <summary>
    /// T9: a page this transaction created whose zero bytes (a tree page's free gap, the tail of
    /// an overflow run's last page) are at most a quarter of it is journaled as its full image: a
    /// diff against zeros would scan and copy nearly all of it to drop little (a full leaf of an
    /// in-order load, a new overflow run), and the record's LZ4 compression shrinks the short
    /// zero stretch anyway. Sparser new pages (the page a split starts) keep the diff.
    /// </summary>
    private bool IsDenseNewPage(long pageNumber, byte[] current)
    {
        if (IsRaw(pageNumber))
        {
            return false; // T8: no header to read the gap from
        }

        long zeros;
        switch (PageHeader.GetFlags(current))
        {
            case PageFlags.Leaf or PageFlags.Branch:
                zeros = PageHeader.GetUpper(current) - (long)PageHeader.GetLower(current);
                break;
            case PageFlags.Overflow:
                zeros = current.Length - PageHeader.Size - (long)PageHeader.GetOverflowSize(current);
                break;
            default:
                return false;
        }

        return zeros >= 0 && zeros * 4 <= current.Length;
    }

    internal static byte[] TreeNameKey(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        var key = Encoding.UTF8.GetBytes(name);
        if (key.Length > Constants.MaxTreeNameSize)
        {
            throw new ArgumentException($"Tree name is {key.Length} UTF-8 bytes; the maximum is {Constants.MaxTreeNameSize}.", nameof(name));
        }

        return key;
    }

    private Dictionary<long, byte[]> RequireWritable()
    {
        if (_prepared)
        {
            throw new InvalidOperationException("T7: this write transaction is prepared for its commit; its pages may not change any more.");
        }

        return _dirty ?? throw new InvalidOperationException("This is a read transaction; open a write transaction to change data.");
    }
}
