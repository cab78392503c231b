namespace Voron.Scratch;

/// <summary>The slot allocator: one bit per 8 KiB slot, and the retired slots waiting for readers to end (SC2).</summary>
internal sealed unsafe partial class ScratchFile
{
    // Guarded by the page table's lock (SC4), except _verified, which readers set lock-free.
    private ulong[] _used = [];
    private ulong[] _verified = [];
    private long _slots;     // slots the file holds (_length / page size)
    private long _usedPages; // slots allocated or retired
    private long _cursor;    // where the next search starts
    private readonly Queue<(long Generation, long Offset, int Pages)> _retired = new(); // oldest generation first

    /// <summary>Bytes of slots allocated to versions or retired (not yet reusable).</summary>
    public long UsedBytes => Volatile.Read(ref _usedPages) * Constants.PageSize;

    /// <summary>Slots retired and not yet released (tests).</summary>
    internal int RetiredCount => _retired.Count;

    /// <summary>SC2: the slot is free to reuse now (its version was pruned: no live transaction can read it).</summary>
    public void Free(long offset, int length)
    {
        var first = offset / Constants.PageSize;
        var pages = length / Constants.PageSize;
        for (var slot = first; slot < first + pages; slot++)
        {
            _used[slot >> 6] &= ~(1UL << (int)(slot & 63));
        }

        Volatile.Write(ref _usedPages, _usedPages - pages);
    }

    /// <summary>
    /// SC2: the slot's version left the page table while transactions of generations up to
    /// <paramref name="generation"/> may still read it: it is reused once they have all ended.
    /// </summary>
    public void Retire(long offset, int length, long generation) => _retired.Enqueue((generation, offset, length / Constants.PageSize));

    /// <summary>Frees retired slots whose generation is older than every live transaction's.</summary>
    public void ReleaseRetired(long oldestLiveGeneration)
    {
        while (_retired.TryPeek(out var retired) && retired.Generation < oldestLiveGeneration)
        {
            _retired.Dequeue();
            Free(retired.Offset, retired.Pages * Constants.PageSize);
        }
    }

    /// <summary>First fit from the cursor; the file grows when no free run is long enough. Returns the first slot.</summary>
    private long Allocate(int pages)
    {
        var first = _slots - _usedPages >= pages ? FindFree(pages) : -1;
        if (first < 0)
        {
            first = _slots;
            Grow((first + pages) * Constants.PageSize);
        }

        for (var slot = first; slot < first + pages; slot++)
        {
            _used[slot >> 6] |= 1UL << (int)(slot & 63);
            Interlocked.And(ref _verified[slot >> 6], ~(1UL << (int)(slot & 63))); // SC1: checked again on its next first read
        }

        Volatile.Write(ref _usedPages, _usedPages + pages);
        _cursor = first + pages;
        return first;
    }

    /// <summary>The first run of <paramref name="pages"/> free slots at or after the cursor, wrapping once; -1 when none.</summary>
    private long FindFree(int pages)
    {
        var start = _cursor >= _slots ? 0 : _cursor;
        var found = FindFree(pages, start, _slots);
        return found >= 0 || start == 0 ? found : FindFree(pages, 0, Math.Min(_slots, start + pages - 1));
    }

    private long FindFree(int pages, long from, long to)
    {
        long run = 0, runStart = from;
        for (var slot = from; slot < to;)
        {
            if ((slot & 63) == 0 && slot + 64 <= to)
            {
                var word = _used[slot >> 6];
                if (word == ulong.MaxValue)
                {
                    run = 0;
                    slot += 64;
                    continue;
                }

                if (word == 0)
                {
                    runStart = run == 0 ? slot : runStart;
                    run += 64;
                    slot += 64;
                    if (run >= pages)
                    {
                        return runStart;
                    }

                    continue;
                }
            }

            if ((_used[slot >> 6] & (1UL << (int)(slot & 63))) == 0)
            {
                runStart = run == 0 ? slot : runStart;
                if (++run >= pages)
                {
                    return runStart;
                }
            }
            else
            {
                run = 0;
            }

            slot++;
        }

        return -1;
    }

    private bool IsVerified(long offset)
    {
        var slot = offset / Constants.PageSize;
        var bits = Volatile.Read(ref _verified);
        return (slot >> 6) < bits.Length && (Volatile.Read(ref bits[slot >> 6]) & (1UL << (int)(slot & 63))) != 0;
    }

    private void MarkVerified(long offset)
    {
        var slot = offset / Constants.PageSize;
        var bits = Volatile.Read(ref _verified);
        if ((slot >> 6) < bits.Length)
        {
            Interlocked.Or(ref bits[slot >> 6], 1UL << (int)(slot & 63));
        }
    }

    private void GrowBitmaps(long slots)
    {
        var words = (slots + 63) >> 6;
        if (words > _used.Length)
        {
            var used = new ulong[words];
            var verified = new ulong[words];
            Array.Copy(_used, used, _used.Length);
            Array.Copy(_verified, verified, _verified.Length);
            _used = used;
            Volatile.Write(ref _verified, verified);
        }

        _slots = slots;
    }

    private void ResetBitmaps()
    {
        _used = [];
        Volatile.Write(ref _verified, []);
        _slots = 0;
        _cursor = 0;
    }
}
