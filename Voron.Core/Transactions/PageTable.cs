using System.Collections.Concurrent;

namespace Voron.Transactions;

// Design notes — the page table (MVCC).
//
// Page numbers are stable: a write transaction that modifies page P makes a private copy of P and,
// when it commits as transaction T, publishes that copy here as version (T, bytes) of P. The data
// file is rewritten only later by the flusher. A reader with snapshot S sees, for each page, the
// newest version with tx <= S from this table, or else the data file's copy.
//
// Invariants:
//   PT1. Versions of a page are sorted by transaction id, and each version's bytes never change
//        once published (readers hold spans into them without locks).
//   PT2. A version is published only after its journal record is durable (a reader never sees
//        data that is not yet durable).
//   PT3. The flusher writes to the data file only the newest version with tx <= F of each page,
//        where F <= the snapshot of every live reader. A reader with snapshot S >= F finds any
//        version in (F, S] here, and otherwise the data file's copy is the newest <= S.
//   PT5. Freeing a page (or run) publishes a tombstone version. Versions are keyed by a run's
//        first page, so a freed page's older version can overlap a newer run that starts
//        elsewhere (a leaf at P+1, freed, then a run allocated at P); the flusher writes only the
//        newest version <= F of each key and skips tombstones, so a stale image never lands on
//        top of a newer one.
//   PT4. Versions with tx <= F are removed only after the data file holds the newest of them and
//        is synced; readers that started before the removal keep their own reference to the
//        removed array and its buffers (garbage collected when they drop it).
//
// Reads are lock-free (ConcurrentDictionary lookups and immutable arrays); publishing and removal
// take _mutation, held only by the committer and the flusher.

/// <summary>Committed page versions not yet flushed to the data file, by page number.</summary>
internal sealed class PageTable
{
    private readonly ConcurrentDictionary<long, PageVersion[]> _versions = new();
    private readonly object _mutation = new();

    /// <summary>One committed version of a page (or overflow run); null bytes = freed at that transaction (a tombstone).</summary>
    internal readonly record struct PageVersion(long TxId, byte[]? Bytes);

    // Pages with versions; read without a lock so an empty table (everything flushed, the
    // common case for read-mostly stores) costs readers one field read instead of a lookup.
    private int _pageCount;

    public int PageCount => Volatile.Read(ref _pageCount);

    /// <summary>The newest version of <paramref name="pageNumber"/> with tx id &lt;= <paramref name="snapshotTxId"/>.</summary>
    public bool TryGet(long pageNumber, long snapshotTxId, out byte[] bytes)
    {
        if (Volatile.Read(ref _pageCount) != 0 && _versions.TryGetValue(pageNumber, out var versions))
        {
            for (var i = versions.Length - 1; i >= 0; i--)
            {
                if (versions[i].TxId <= snapshotTxId)
                {
                    // A tombstone: the page was free at this snapshot; nothing to read here.
                    bytes = versions[i].Bytes!;
                    return bytes != null;
                }
            }
        }

        bytes = null!;
        return false;
    }

    /// <summary>
    /// Publishes the pages transaction <paramref name="txId"/> wrote (PT2: after its record is
    /// durable) and tombstones for the pages (or runs) it freed (PT5).
    /// </summary>
    public void Publish(long txId, IEnumerable<KeyValuePair<long, byte[]>> pages, IEnumerable<long> freed)
    {
        lock (_mutation)
        {
            foreach (var (pageNumber, bytes) in pages.Concat(freed.Select(f => new KeyValuePair<long, byte[]>(f, null!))))
            {
                var version = new PageVersion(txId, bytes);
                if (_versions.TryGetValue(pageNumber, out var existing))
                {
                    _versions[pageNumber] = [.. existing, version];
                }
                else
                {
                    // Count first: a reader that sees the count may look up and miss, never the reverse.
                    Interlocked.Increment(ref _pageCount);
                    _versions[pageNumber] = [version];
                }
            }
        }
    }

    /// <summary>The newest version with tx id &lt;= <paramref name="upToTxId"/> of each listed page (what the flusher writes).</summary>
    public List<KeyValuePair<long, byte[]>> NewestUpTo(IEnumerable<long> pageNumbers, long upToTxId)
    {
        var result = new List<KeyValuePair<long, byte[]>>();
        foreach (var pageNumber in pageNumbers)
        {
            if (TryGet(pageNumber, upToTxId, out var bytes))
            {
                result.Add(new(pageNumber, bytes));
            }
        }

        result.Sort((a, b) => a.Key.CompareTo(b.Key));
        return result;
    }

    /// <summary>Drops versions with tx id &lt;= <paramref name="upToTxId"/> of the listed pages (PT4: after the data file has them).</summary>
    public void RemoveUpTo(IEnumerable<long> pageNumbers, long upToTxId)
    {
        lock (_mutation)
        {
            foreach (var pageNumber in pageNumbers)
            {
                if (!_versions.TryGetValue(pageNumber, out var versions))
                {
                    continue;
                }

                var keep = Array.FindAll(versions, v => v.TxId > upToTxId);
                if (keep.Length == 0)
                {
                    _versions.TryRemove(pageNumber, out _);
                    Interlocked.Decrement(ref _pageCount);
                }
                else if (keep.Length != versions.Length)
                {
                    _versions[pageNumber] = keep;
                }
            }
        }
    }
}
