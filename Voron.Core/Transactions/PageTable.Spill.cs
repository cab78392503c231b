namespace Voron.Transactions;

/// <summary>Spilling versions to the scratch file when memory is over the budget (PT8).</summary>
internal sealed partial class PageTable
{
    // Guarded by _mutation: in-memory versions in the order they were published (oldest first),
    // with entries made stale by pruning, removal or spilling skipped when met and swept out when
    // they outnumber the live ones.
    private readonly Queue<(long PageNumber, long TxId)> _spillOrder = new();
    private long _inMemoryVersions;

    /// <summary>PT8: moves the oldest-published in-memory versions to the scratch file until the rest fit the budget.</summary>
    private void SpillOverBudget(VersionRetention retention)
    {
        if (_memoryBytes <= _budget)
        {
            return;
        }

        _scratch.ReleaseRetired(retention.OldestGeneration); // reuse before growing
        var victims = new List<KeyValuePair<long, byte[]>>();
        var txIds = new List<long>();
        var excess = _memoryBytes - _budget;
        while (excess > 0 && _spillOrder.TryDequeue(out var key))
        {
            if (FindExact(key.PageNumber, key.TxId) is { Bytes: { } bytes })
            {
                victims.Add(new(key.PageNumber, bytes));
                txIds.Add(key.TxId);
                excess -= bytes.Length;
            }
        }

        var slots = _scratch.Store(victims); // written before any entry names them (readers may look at once)
        for (var i = 0; i < victims.Count; i++)
        {
            var (pageNumber, bytes) = victims[i];
            var versions = _versions[pageNumber];
            var index = Array.FindIndex(versions, v => v.TxId == txIds[i]);
            var replaced = (PageVersion[])versions.Clone();
            replaced[index] = PageVersion.Spilled(txIds[i], slots[i], bytes.Length);
            _versions[pageNumber] = replaced; // PT1: same bytes, now in the slot; the array is left untouched
            _buffers.Retire(bytes, retention.CurrentGeneration); // PT9: for the transactions that may hold it
            Interlocked.Add(ref _memoryBytes, -bytes.Length);
            Interlocked.Add(ref _spilledBytes, bytes.Length);
            _inMemoryVersions--;
        }

        System.Diagnostics.Debug.Assert(_memoryBytes <= _budget, "PT8: every in-memory version is in the spill order, so spilling reaches the budget");
    }

    private PageVersion? FindExact(long pageNumber, long txId)
    {
        if (_versions.TryGetValue(pageNumber, out var versions))
        {
            foreach (var version in versions)
            {
                if (version.TxId == txId)
                {
                    return version;
                }
            }
        }

        return null;
    }

    /// <summary>Sweeps stale entries out of the spill order once they outnumber the live ones, so it stays proportional to the versions in memory.</summary>
    private void CompactSpillOrder()
    {
        if (_spillOrder.Count <= (2 * _inMemoryVersions) + 1024)
        {
            return;
        }

        var live = _spillOrder.Where(k => FindExact(k.PageNumber, k.TxId) is { Bytes: not null }).ToList();
        _spillOrder.Clear();
        foreach (var key in live)
        {
            _spillOrder.Enqueue(key);
        }
    }
}
