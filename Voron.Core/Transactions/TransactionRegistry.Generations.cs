namespace Voron.Transactions;

internal sealed partial class TransactionRegistry
{
    // What the page table may drop or reuse (Transactions/PageTable.cs PT6, PT7), guarded by
    // _lock, the lock transactions register under:
    //
    //   generations — every live transaction (reader, explicit writer, merged batch while it, its
    //   commit or the batch built on it can read its pages: TransactionMerger M9) is counted in the
    //   generation current when it began. A flush that removes
    //   versions advances the generation afterwards (RetireGeneration) and their scratch slots and
    //   page buffers (Transactions/PageBufferPool.cs) wait until no transaction of that generation
    //   or an older one is live: only those can have found the versions. Generations advance once
    //   per flush at most, and only transactions that are live keep an older one counted, so the
    //   count of older generations with live transactions stays tiny.
    //
    //   the flush pin — the horizon F of the flush under way (FL8 in Flushing/DataFileFlusher.cs):
    //   pruning keeps the newest version <= F as if F were a reader, so the flush writes what it
    //   fixed even if the readers that set F end meanwhile.
    private long _generation;
    private int _liveInGeneration;
    private readonly SortedDictionary<long, int> _liveInOlderGenerations = [];
    private long? _flushPin;

    /// <summary>Counts a transaction that begins now in the current generation. Under _lock.</summary>
    private long EnterGenerationLocked()
    {
        _liveInGeneration++;
        return _generation;
    }

    /// <summary>Counts a transaction that ended. Under _lock.</summary>
    private void ExitGenerationLocked(long generation)
    {
        if (generation == _generation)
        {
            _liveInGeneration--;
        }
        else if (--_liveInOlderGenerations[generation] == 0)
        {
            _liveInOlderGenerations.Remove(generation);
        }
    }

    /// <summary>A merged batch counts as a live transaction (it reads page versions): PT7; how long is M9's GenerationLease.</summary>
    public long EnterGeneration()
    {
        lock (_lock)
        {
            return EnterGenerationLocked();
        }
    }

    /// <summary>PT7: the merged batch that began in <paramref name="generation"/> ended.</summary>
    public void ExitGeneration(long generation)
    {
        lock (_lock)
        {
            ExitGenerationLocked(generation);
        }
    }

    /// <summary>
    /// PT7: called after versions left the page table. Returns the generation their slots and buffers
    /// wait on — every transaction that may have found them began in it or earlier — and starts a
    /// new one for transactions that begin from now on.
    /// </summary>
    public long RetireGeneration()
    {
        lock (_lock)
        {
            var retired = _generation;
            if (_liveInGeneration > 0)
            {
                _liveInOlderGenerations[retired] = _liveInGeneration;
            }

            _generation++;
            _liveInGeneration = 0;
            return retired;
        }
    }

    /// <summary>PT6, PT7: the live snapshots and the flush pin, the committed transaction and the oldest live generation, in one step.</summary>
    public VersionRetention CaptureRetention()
    {
        lock (_lock)
        {
            var snapshots = new List<long>(_readers.Count + 1);
            snapshots.AddRange(_readers.Keys);
            if (_flushPin is { } pin && !_readers.ContainsKey(pin))
            {
                snapshots.Add(pin);
                snapshots.Sort();
            }

            var oldest = _liveInOlderGenerations.Count > 0 ? _liveInOlderGenerations.First().Key
                : _liveInGeneration > 0 ? _generation
                : long.MaxValue;
            return new VersionRetention([.. snapshots], _committed().TxId, oldest, _generation);
        }
    }

    /// <summary>
    /// The flush's horizon (FL1: <see cref="SnapshotHorizon"/>), pinned for pruning until
    /// <see cref="UnpinFlushHorizon"/> (FL8), in the same step.
    /// </summary>
    public long PinFlushHorizon()
    {
        lock (_lock)
        {
            var horizon = SnapshotHorizonLocked();
            _flushPin = horizon;
            return horizon;
        }
    }

    /// <summary>FL8: the flush ended; pruning no longer keeps its horizon.</summary>
    public void UnpinFlushHorizon()
    {
        lock (_lock)
        {
            _flushPin = null;
        }
    }
}
