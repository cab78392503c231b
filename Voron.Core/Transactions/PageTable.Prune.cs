namespace Voron.Transactions;

/// <summary>Pruning (PT6) and the maintenance pass the flusher runs.</summary>
internal sealed partial class PageTable
{
    // Guarded by _mutation.
    private readonly HashSet<long> _multiVersion = []; // pages with two versions or more: the only ones pruning can shrink
    private readonly HashSet<long> _touched = [];      // pages that may hold a prunable version the last pass did not see
    private long[] _lastSnapshots = [];

    /// <summary>
    /// Prunes what no one can read any more (PT6), frees the retired scratch slots no live
    /// transaction can hold (PT7), spills down to the budget (PT8), gives the scratch file's
    /// space back once nothing is in it (SC3), and releases the scratch mapping's views no one can
    /// read (MV4). The flusher runs it after each flush and at every wake, under its flush lock,
    /// so versions a reader kept are dropped soon after it ends even when nothing commits. Returns
    /// the pass's capture, for the flusher's release of the data file's views (MV3, MV4).
    /// </summary>
    public VersionRetention Maintain(Func<VersionRetention> capture)
    {
        lock (_mutation)
        {
            var retention = capture(); // under the lock, as Publish does: a removal's retirement (PT7) is never newer than it
            _buffers.ReleaseRetired(retention.OldestGeneration); // PT9: first, so nothing this pass retires is released from this capture
            // Only a change of the live snapshots can make versions of untouched pages prunable;
            // otherwise the pages published to since the last pass are all there is to look at.
            var candidates = retention.Snapshots.AsSpan().SequenceEqual(_lastSnapshots) ? [.. _touched] : _multiVersion.ToArray();
            _lastSnapshots = retention.Snapshots;
            _touched.Clear();
            foreach (var pageNumber in candidates)
            {
                Prune(pageNumber, retention);
                if (_versions.TryGetValue(pageNumber, out var versions) && versions.Length >= 2 && versions[^1].TxId > retention.Committed)
                {
                    _touched.Add(pageNumber); // its newest is not visible yet: the version before it becomes prunable later
                }
            }

            _scratch.ReleaseRetired(retention.OldestGeneration);
            SpillOverBudget(retention);
            CompactSpillOrder();
            if (_spilledBytes == 0)
            {
                _scratch.TruncateIfUnused();
            }

            _scratch.Views?.Maintain(retention.OldestGeneration, retention.CurrentGeneration); // MV4, then MV3: last, so this pass's spills are stamped
            return retention;
        }
    }

    /// <summary>Drops the versions of one page that no live or future transaction resolves to (PT6); frees their scratch slots at once (PT7).</summary>
    private void Prune(long pageNumber, VersionRetention retention)
    {
        if (!_versions.TryGetValue(pageNumber, out var versions) || versions.Length < 2)
        {
            return;
        }

        var keep = new bool[versions.Length];
        var snapshot = 0;
        var snapshots = retention.Snapshots;
        for (var i = 0; i < versions.Length; i++)
        {
            var next = i + 1 < versions.Length ? versions[i + 1].TxId : long.MaxValue;
            // Version i is what snapshots in [tx_i, tx_i+1) resolve to.
            keep[i] = versions[i].TxId > retention.Committed || next > retention.Committed;
            while (snapshot < snapshots.Length && snapshots[snapshot] < versions[i].TxId)
            {
                snapshot++;
            }

            keep[i] |= snapshot < snapshots.Length && snapshots[snapshot] < next;
        }

        if (Array.TrueForAll(keep, k => k))
        {
            return;
        }

        var kept = new List<PageVersion>(versions.Length);
        List<PageVersion>? spilled = null;
        List<byte[]>? buffers = null;
        for (var i = 0; i < versions.Length; i++)
        {
            if (keep[i])
            {
                kept.Add(versions[i]);
            }
            else
            {
                Forget(versions[i], ref spilled, ref buffers);
            }
        }

        SetVersions(pageNumber, [.. kept]);
        foreach (var version in spilled ?? [])
        {
            _scratch.Free(version.ScratchOffset, version.Length); // PT7: nobody resolved to it while it could be read
        }

        foreach (var buffer in buffers ?? [])
        {
            _buffers.Retire(buffer, retention.CurrentGeneration); // PT9
        }
    }
}
