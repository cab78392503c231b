using System.Collections.Concurrent;
using Voron.Scratch;

namespace Voron.Transactions;

// Design notes — the page table (MVCC).
//
// Page numbers are stable: a write transaction that modifies page P makes a private copy of P and,
// when it commits as transaction T, publishes that copy here as version (T, bytes) of P. The data
// file is rewritten only later by the flusher. A reader with snapshot S sees, for each page, the
// newest version with tx <= S from this table, or else the data file's copy.
//
// A version's bytes live in managed memory until the table holds more than its budget
// (StorageEnvironmentOptions.MaxPageVersionMemory); beyond that the oldest published ones move to
// the scratch file (Scratch/ScratchFile.cs) and are read through its mapping. Versions that
// nobody can read any more are dropped before any flush (pruning), so a reader that lives for
// hours costs, per page, the version it sees plus the newest ones — not one version per commit.
//
// Invariants:
//   PT1. Versions of a page are sorted by transaction id, and each version's bytes never change
//        once published (readers hold spans into them without locks). Spilling replaces an entry
//        by one naming a scratch slot that holds the same bytes; the managed array is left as it
//        is until no transaction can hold it (PT9).
//   PT2. A version is published only after its journal record is durable (a reader never sees
//        data that is not yet durable).
//   PT3. The flusher writes to the data file only the newest version with tx <= F of each page,
//        where F <= the snapshot of every live reader. A reader with snapshot S >= F finds any
//        version in (F, S] here, and otherwise the data file's copy is the newest <= S.
//   PT4. Versions with tx <= F are removed only after the data file holds the newest of them and
//        is synced; readers that started before the removal keep their own reference to the
//        removed array and its buffers (garbage collected when they drop it), and a removed
//        version's scratch slot is not reused while they live (PT7).
//   PT5. Freeing a page (or run) publishes a tombstone version. Versions are keyed by a run's
//        first page, so a freed page's older version can overlap a newer run that starts
//        elsewhere (a leaf at P+1, freed, then a run allocated at P); the flusher writes only the
//        newest version <= F of each key and skips tombstones, so a stale image never lands on
//        top of a newer one.
//   PT6. Pruning drops a version nobody can resolve to any more. With C the last committed
//        transaction and the live snapshots (readers' and the running flush's horizon, FL8)
//        captured in one step under the readers' lock (VersionRetention), a version is kept iff
//        its tx > C, or it is the newest <= C, or it is the newest <= some live snapshot. A
//        reader that registers later has a snapshot >= C; a write transaction reads the newest
//        <= its base, which is C, or (async commit) the in-flight commit whose own versions are
//        > C and which holds its pages itself (readable for the batch built on it: M9); the flusher reads the newest <= F, F pinned. So no
//        live or future transaction resolves to a pruned version, and removing it from the
//        middle of the list changes what nobody reads. Pruning never changes the newest <= F of
//        any F a flush can still choose (FL1: F is a live snapshot or >= C).
//   PT7. A spilled version's slot is reused (SC2) only when no transaction can hold a span into
//        it: a pruned version's at once (PT6: no live transaction resolved to it, and one that did
//        has ended); a flushed version's once every transaction (reader, explicit writer, merged
//        batch) live at its removal has ended — it is retired with the generation current at the
//        removal (TransactionRegistry.RetireGeneration), and transactions that begin afterwards
//        cannot find it.
//   PT8. After every Publish and every maintenance pass the managed bytes of the versions held
//        here (MemoryBytes) are at most the budget: the oldest-published versions in memory are
//        spilled first. The budget counts page bytes only, not the table's bookkeeping.
//   PT9. A page buffer that leaves the table (its version pruned, flushed and removed, or
//        spilled) is retired to the page buffer pool with a generation no older than any
//        transaction's that could have found it — the removal's (RetireGeneration) for a flushed
//        version, the current one (captured under this lock, where it cannot advance) for a
//        pruned or spilled one — and handed to a new copy only after those transactions ended
//        (PageBufferPool PB1). Buffers are released only at the start of a maintenance pass, from
//        the generations of that pass's capture: never a buffer retired after the capture. The
//        flusher, which reads its images without being a transaction, runs those passes itself
//        under its flush lock, so no buffer is released while a flush still reads its images. A
//        merged batch built on the in-flight commit reads that commit's buffers through the commit
//        and may find them after they left the table (the commit visible, a flush removed them):
//        the commit's generation stays counted until that batch ends (TransactionMerger M9).
//
// Reads are lock-free (ConcurrentDictionary lookups and immutable arrays); publishing, pruning,
// spilling and removal take _mutation (lock order: _mutation, then the readers' lock).

/// <summary>Committed page versions not yet flushed to the data file, by page number.</summary>
internal sealed partial class PageTable : IDisposable
{
    private readonly ConcurrentDictionary<long, PageVersion[]> _versions = new();
    private readonly object _mutation = new();
    private readonly ScratchFile _scratch;
    private readonly PageBufferPool _buffers;
    private readonly long _budget;

    // Pages with versions; read without a lock so an empty table (everything flushed, the
    // common case for read-mostly stores) costs readers one field read instead of a lookup.
    private int _pageCount;

    // Changed under _mutation (Interlocked, so reporting reads them without it).
    private long _memoryBytes;
    private long _spilledBytes;

    public PageTable(ScratchFile scratch, long memoryBudget, PageBufferPool buffers)
    {
        _scratch = scratch;
        _budget = memoryBudget;
        _buffers = buffers;
    }

    /// <summary>Where page buffers that left the table wait for their readers, then go to new copies (PT9).</summary>
    public PageBufferPool Buffers => _buffers;

    public int PageCount => Volatile.Read(ref _pageCount);

    /// <summary>Bytes of page versions held in managed memory (PT8).</summary>
    public long MemoryBytes => Volatile.Read(ref _memoryBytes);

    /// <summary>Bytes of page versions held in the scratch file.</summary>
    public long SpilledBytes => Volatile.Read(ref _spilledBytes);

    public long MemoryBudget => _budget;

    public ScratchFile Scratch => _scratch;

    /// <summary>The number of versions held for <paramref name="pageNumber"/> (tests).</summary>
    internal int VersionCount(long pageNumber) => _versions.TryGetValue(pageNumber, out var versions) ? versions.Length : 0;

    /// <summary>The newest version of <paramref name="pageNumber"/> with tx id &lt;= <paramref name="snapshotTxId"/>.</summary>
    public bool TryGet(long pageNumber, long snapshotTxId, out ReadOnlySpan<byte> bytes)
    {
        if (TryFind(pageNumber, snapshotTxId, out var version))
        {
            if (version.Bytes != null)
            {
                bytes = version.Bytes;
                return true;
            }

            if (version.IsSpilled)
            {
                bytes = _scratch.Read(pageNumber, version.Slot, version.Length);
                return true;
            }
        }

        // None, or a tombstone: the page was free at this snapshot; nothing to read here.
        bytes = default;
        return false;
    }

    private bool TryFind(long pageNumber, long snapshotTxId, out PageVersion version)
    {
        if (Volatile.Read(ref _pageCount) != 0 && _versions.TryGetValue(pageNumber, out var versions))
        {
            for (var i = versions.Length - 1; i >= 0; i--)
            {
                if (versions[i].TxId <= snapshotTxId)
                {
                    version = versions[i];
                    return true;
                }
            }
        }

        version = default;
        return false;
    }

    /// <summary>
    /// Publishes the pages transaction <paramref name="txId"/> wrote (PT2: after its record is
    /// durable) and tombstones for the pages (or runs) it freed (PT5); then prunes the pages it
    /// touched (PT6) and spills what is over the budget (PT8). <paramref name="retention"/> is
    /// asked for at most once, only when one of those has work to do.
    /// </summary>
    public void Publish(long txId, IEnumerable<KeyValuePair<long, byte[]>> pages, IEnumerable<long> freed, Func<VersionRetention> retention)
    {
        lock (_mutation)
        {
            List<long>? crowded = null;
            foreach (var (pageNumber, bytes) in pages)
            {
                _buffers.NotePublished(bytes); // PB5: a copy no other version and no free list holds
                Add(pageNumber, PageVersion.InMemory(txId, bytes), ref crowded);
                Interlocked.Add(ref _memoryBytes, bytes.Length);
                _spillOrder.Enqueue((pageNumber, txId));
                _inMemoryVersions++;
            }

            foreach (var pageNumber in freed)
            {
                Add(pageNumber, PageVersion.Tombstone(txId), ref crowded);
            }

            if (crowded == null && _memoryBytes <= _budget)
            {
                return;
            }

            var retained = retention();
            foreach (var pageNumber in crowded ?? [])
            {
                Prune(pageNumber, retained);
            }

            SpillOverBudget(retained);
        }
    }

    /// <summary>Appends a version; pages with three or more are pruned after the commit (PT6: the usual steady state is two).</summary>
    private void Add(long pageNumber, PageVersion version, ref List<long>? crowded)
    {
        if (_versions.TryGetValue(pageNumber, out var existing))
        {
            PageVersion[] grown = [.. existing, version];
            _versions[pageNumber] = grown;
            _multiVersion.Add(pageNumber);
            _touched.Add(pageNumber);
            if (grown.Length >= 3)
            {
                (crowded ??= []).Add(pageNumber);
            }
        }
        else
        {
            // Count first: a reader that sees the count may look up and miss, never the reverse.
            Interlocked.Increment(ref _pageCount);
            _versions[pageNumber] = [version];
        }
    }

    /// <summary>
    /// The newest version with tx id &lt;= <paramref name="upToTxId"/> of each listed page, sorted
    /// by page number (what the flusher writes; tombstones are skipped, PT5). A spilled version is
    /// handed over as the scratch file's mapped memory, checked (SC1).
    /// </summary>
    public List<KeyValuePair<long, ReadOnlyMemory<byte>>> NewestUpTo(IEnumerable<long> pageNumbers, long upToTxId)
    {
        var result = new List<KeyValuePair<long, ReadOnlyMemory<byte>>>();
        foreach (var pageNumber in pageNumbers)
        {
            if (!TryFind(pageNumber, upToTxId, out var version) || version.IsTombstone)
            {
                continue;
            }

            result.Add(new(pageNumber, version.Bytes ?? _scratch.ReadMemory(pageNumber, version.Slot, version.Length)));
        }

        result.Sort((a, b) => a.Key.CompareTo(b.Key));
        return result;
    }

    /// <summary>
    /// Drops versions with tx id &lt;= <paramref name="upToTxId"/> of the listed pages (PT4: after
    /// the data file has them). Their scratch slots are retired with the generation
    /// <paramref name="retireGeneration"/> returns, asked for after they are gone (PT7).
    /// </summary>
    public void RemoveUpTo(IEnumerable<long> pageNumbers, long upToTxId, Func<long> retireGeneration)
    {
        lock (_mutation)
        {
            List<PageVersion>? retired = null;
            List<byte[]>? buffers = null;
            foreach (var pageNumber in pageNumbers)
            {
                if (!_versions.TryGetValue(pageNumber, out var versions))
                {
                    continue;
                }

                var keep = Array.FindAll(versions, v => v.TxId > upToTxId);
                if (keep.Length == versions.Length)
                {
                    continue;
                }

                foreach (var version in versions)
                {
                    if (version.TxId <= upToTxId)
                    {
                        Forget(version, ref retired, ref buffers);
                    }
                }

                SetVersions(pageNumber, keep);
            }

            if (retired != null || buffers != null)
            {
                var generation = retireGeneration(); // after the removal: later transactions cannot find them
                foreach (var version in retired ?? [])
                {
                    _scratch.Retire(version.ScratchOffset, version.Length, generation);
                }

                foreach (var buffer in buffers ?? [])
                {
                    _buffers.Retire(buffer, generation); // PT9
                }
            }

            CompactSpillOrder();
        }
    }

    /// <summary>
    /// Accounts for a version leaving the table; a spilled one goes to <paramref name="spilled"/>
    /// (the caller frees or retires its slot), an in-memory one's buffer to
    /// <paramref name="buffers"/> (the caller retires it: PT9).
    /// </summary>
    private void Forget(PageVersion version, ref List<PageVersion>? spilled, ref List<byte[]>? buffers)
    {
        if (version.Bytes != null)
        {
            Interlocked.Add(ref _memoryBytes, -version.Length);
            _inMemoryVersions--;
            (buffers ??= []).Add(version.Bytes);
        }
        else if (version.IsSpilled)
        {
            Interlocked.Add(ref _spilledBytes, -version.Length);
            (spilled ??= []).Add(version);
        }
    }

    /// <summary>Replaces a page's versions (empty: the page leaves the table).</summary>
    private void SetVersions(long pageNumber, PageVersion[] versions)
    {
        if (versions.Length == 0)
        {
            _versions.TryRemove(pageNumber, out _);
            Interlocked.Decrement(ref _pageCount);
        }
        else
        {
            _versions[pageNumber] = versions;
        }

        if (versions.Length < 2)
        {
            _multiVersion.Remove(pageNumber);
            _touched.Remove(pageNumber);
        }
    }

    public void Dispose() => _scratch.Dispose();
}
