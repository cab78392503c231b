using System.Buffers.Binary;
using System.Collections.Concurrent;

namespace Voron.Sealing;

// Design notes — the decrypted-page cache: a page is decrypted at most once per version.
//
// A sealed store's data file cannot be read in place: Pager.ReadPage opens a page (SealedPages.Open)
// into a buffer of its own and hands out that buffer. This cache keeps those buffers, so a hot page
// is decrypted once per version, not once per read.
//
//   OP1. An entry is keyed by page number and holds the nonce of the seal it was opened from. A
//        seal's nonce is never used twice under one subkey (SL1), so the nonce names the version: a
//        hit is an entry whose nonce equals the one the data file holds at that page now. A page the
//        flusher rewrote therefore misses even if nobody told the cache, and the entry is replaced.
//   OP2. Buffers are managed arrays, never pooled or cleared while the store is open: a reader holds
//        a span into one for as long as its transaction lives, and the runtime keeps an array alive
//        exactly as long as a span into it exists. So evicting or replacing an entry only drops the
//        cache's reference; no reader's span is invalidated, and no generation has to be waited for.
//        A raw pointer into a cached buffer is kept only with a reference to the buffer beside it
//        (OP5). SL10 is kept for
//        buffers the store owns outright; an evicted buffer's plaintext stays in process memory
//        until the collector reuses it, which the threat model leaves to the operating system.
//   OP3. The cache holds at most its capacity in bytes (StorageEnvironmentOptions.DecryptedPageCacheSize,
//        256 MiB by default; StoreStatistics.DecryptedPages shows its use). An insert above it evicts by second chance (CLOCK over the
//        insertion order): an entry hit since it was last passed is kept once more. A run larger than
//        the capacity is handed out uncached.
//   OP4. Lookups are lock-free (a ConcurrentDictionary read and a nonce compare) and write no
//        shared memory on a hit but the second-chance bit, once; inserts and evictions take one
//        lock. Two readers that miss the same page both decrypt it; the second insert replaces the
//        first, and both buffers are valid.
//   OP5. Buffers are allocated on the pinned object heap, so they never move: a cursor may keep
//        the address of the leaf it is on, as it does for mapped pages, provided it also keeps the
//        buffer itself (IPageAccess.IsMapped's keepAlive), which keeps it from being collected.

/// <summary>Opened pages of a sealed store, one entry per page, keyed by the seal's nonce (OP1–OP5 above).</summary>
internal sealed class DecryptedPageCache
{
    private readonly ConcurrentDictionary<long, Entry> _entries = new();
    private readonly Queue<(long PageNumber, Entry Entry)> _clock = new(); // insertion order, under _lock
    private readonly Lock _lock = new();
    private readonly long _capacity;
    private long _bytes; // under _lock
    private long _misses;
    private long _evictions;

    public DecryptedPageCache(long capacityBytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacityBytes);
        _capacity = capacityBytes;
    }

    /// <summary>The bytes the entries hold now.</summary>
    public long Bytes
    {
        get
        {
            lock (_lock)
            {
                return _bytes;
            }
        }
    }

    /// <summary>OP3: the most bytes it holds.</summary>
    public long Capacity => _capacity;

    public long Misses => Interlocked.Read(ref _misses);

    public long Evictions => Interlocked.Read(ref _evictions);

    public int Count => _entries.Count;

    /// <summary>OP1: the opened bytes of the version of <paramref name="pageNumber"/> sealed with <paramref name="nonce"/>, if cached.</summary>
    public bool TryGet(long pageNumber, ReadOnlySpan<byte> nonce, out byte[] bytes)
    {
        if (_entries.TryGetValue(pageNumber, out var entry) && entry.Matches(nonce))
        {
            if (!entry.Referenced)
            {
                entry.Referenced = true; // written only when it changes: readers on other cores share the hot entries' lines
            }

            bytes = entry.Bytes;
            return true;
        }

        Interlocked.Increment(ref _misses);
        bytes = [];
        return false;
    }

    /// <summary>Keeps <paramref name="bytes"/>, opened from the seal with <paramref name="nonce"/>, as page <paramref name="pageNumber"/>'s version (OP3).</summary>
    public void Add(long pageNumber, ReadOnlySpan<byte> nonce, byte[] bytes)
    {
        if (bytes.Length > _capacity)
        {
            return; // OP3: handed out uncached
        }

        var entry = new Entry(bytes, nonce);
        lock (_lock)
        {
            if (_entries.TryGetValue(pageNumber, out var old))
            {
                _bytes -= old.Bytes.Length; // its place in _clock is skipped when reached
            }

            _entries[pageNumber] = entry;
            _clock.Enqueue((pageNumber, entry));
            _bytes += bytes.Length;
            EvictOverCapacity();
        }
    }

    /// <summary>Drops the entries of pages [<paramref name="pageNumber"/>, +<paramref name="count"/>): the data file is being rewritten there (memory only: OP1 already makes them miss).</summary>
    public void Forget(long pageNumber, int count)
    {
        if (_entries.IsEmpty)
        {
            return;
        }

        lock (_lock)
        {
            for (var p = pageNumber; p < pageNumber + count; p++)
            {
                if (_entries.TryRemove(p, out var old))
                {
                    _bytes -= old.Bytes.Length;
                }
            }
        }
    }

    private void EvictOverCapacity()
    {
        // Each pass over the queue clears the reference bit of what it keeps, so two passes at most
        // find a victim; the bound guards a queue left full of replaced entries.
        var budget = 2 * _clock.Count + 1;
        while (_bytes > _capacity && budget-- > 0 && _clock.TryDequeue(out var slot))
        {
            if (!_entries.TryGetValue(slot.PageNumber, out var current) || !ReferenceEquals(current, slot.Entry))
            {
                continue; // replaced or forgotten: its bytes were already taken off
            }

            if (slot.Entry.Referenced)
            {
                slot.Entry.Referenced = false;
                _clock.Enqueue(slot);
                continue;
            }

            _entries.TryRemove(slot.PageNumber, out _);
            _bytes -= slot.Entry.Bytes.Length;
            Interlocked.Increment(ref _evictions);
        }

        if (_clock.Count > 4 * Math.Max(_entries.Count, 16))
        {
            // Replaced entries pile up in the queue when the same pages are rewritten and read
            // again: rebuild it from the live entries.
            var live = _clock.Where(s => _entries.TryGetValue(s.PageNumber, out var e) && ReferenceEquals(e, s.Entry)).ToArray();
            _clock.Clear();
            foreach (var slot in live)
            {
                _clock.Enqueue(slot);
            }
        }
    }

    private sealed class Entry(byte[] bytes, ReadOnlySpan<byte> nonce)
    {
        private readonly ulong _nonceLow = BinaryPrimitives.ReadUInt64LittleEndian(nonce);
        private readonly uint _nonceHigh = BinaryPrimitives.ReadUInt32LittleEndian(nonce[sizeof(ulong)..]);

        public byte[] Bytes { get; } = bytes;

        public volatile bool Referenced;

        public bool Matches(ReadOnlySpan<byte> nonce) =>
            BinaryPrimitives.ReadUInt64LittleEndian(nonce) == _nonceLow && BinaryPrimitives.ReadUInt32LittleEndian(nonce[sizeof(ulong)..]) == _nonceHigh;
    }
}
