namespace Voron.Transactions;

// Design notes — the transaction registry.
//
// Who is live in the store, and what that lets the rest of the engine overwrite, drop or reuse.
// One lock (_lock: "the readers' lock" of the rules elsewhere) guards every field, so each answer
// is computed in one step against the same registrations:
//
//   readers      the snapshot each live read transaction holds (tx id -> count, and when the
//                first of them began). The oldest is the flush's horizon (FL1 in
//                Flushing/DataFileFlusher.cs), what freed pages wait for (A5 in
//                Allocation/PageAllocator.cs) and what StorageEnvironment.OldestSnapshotPin reports.
//   admission    the live transactions of any kind, the explicit commits under way, and the
//                close: no transaction begins once the store is closed; no write transaction and
//                no explicit commit once its close was requested (LC1, LC3); the close waits for
//                the commits under way (LC3); the last transaction to end after the close hands
//                the store's resources back, once (LC6). The rules are in StorageEnvironment.cs.
//   generations  what retired scratch slots and page buffers wait for (PT7, PB1):
//                TransactionRegistry.Generations.cs.
//   flush pin    the horizon of the flush under way, kept for pruning as if it were a reader
//                (FL8): TransactionRegistry.Generations.cs.
//
// The committed state is read through a function, under the lock. It only moves forward, so a
// transaction that registers after an answer was computed begins at the committed state the
// answer saw or a later one: that is why the horizon is fixed in one step here (FL1, A5), and
// why reading the oldest reader and the committed state apart would be wrong (a reader could
// slip between the two reads).
//
// Lock order: the page table's _mutation, then this lock (CaptureRetention and RetireGeneration
// run under the page table's lock). Under this lock the registry calls only the committed-state
// function, its exception factories and TryClose's callback (which ends the commit waits:
// CommitWaiters takes no lock).

/// <summary>
/// The table of live transactions: readers' snapshots, the store's admission of transactions and
/// explicit commits across its close, generations and the flush pin, and the retention and
/// horizon answers they give. Thread-safe. It never sees the store that owns it.
/// </summary>
internal sealed partial class TransactionRegistry
{
    private readonly object _lock = new();
    private readonly Func<CommittedState> _committed;
    private readonly Func<ObjectDisposedException> _closedError;
    private readonly Func<ObjectDisposedException> _closingError;
    private readonly Func<long> _timestamp;

    // Guarded by _lock.
    private readonly SortedDictionary<long, (int Count, long Since)> _readers = []; // Since: _timestamp() when its first live reader began
    private int _liveTransactions;
    private int _commitsInProgress; // LC3: explicit commits under way; the close waits for them
    private bool _closeRequested; // LC1: write transactions and explicit commits that have not begun are refused
    private bool _closed;
    private bool _resourcesReleased; // LC6: handed back once

    /// <param name="committed">The last committed state (read under the lock; it only moves forward).</param>
    /// <param name="closedError">What a transaction that begins after the close gets.</param>
    /// <param name="closingError">What a write transaction or explicit commit that begins after the close was requested gets (LC1).</param>
    /// <param name="timestamp">A Stopwatch timestamp (when a snapshot's first reader began); Stopwatch.GetTimestamp by default.</param>
    public TransactionRegistry(Func<CommittedState> committed, Func<ObjectDisposedException> closedError,
        Func<ObjectDisposedException> closingError, Func<long>? timestamp = null)
    {
        _committed = committed;
        _closedError = closedError;
        _closingError = closingError;
        _timestamp = timestamp ?? System.Diagnostics.Stopwatch.GetTimestamp;
    }

    /// <summary>Whether the store is closed: no transaction begins any more.</summary>
    public bool IsClosed => Volatile.Read(ref _closed);

    /// <summary>
    /// Registers a read transaction on the last committed state, which it returns, in one step:
    /// its snapshot holds back the horizon from here. <paramref name="generation"/> is the one it
    /// counts in (PT7).
    /// </summary>
    public CommittedState EnterReader(out long generation) => Enter(reader: true, out generation);

    /// <summary>Registers an explicit write transaction (refused once the close was requested: LC1).</summary>
    public CommittedState EnterWriter(out long generation) => Enter(reader: false, out generation);

    private CommittedState Enter(bool reader, out long generation)
    {
        lock (_lock)
        {
            if (_closed)
            {
                throw _closedError();
            }

            if (!reader && _closeRequested)
            {
                throw _closingError(); // LC1: no write transaction begins once Dispose has begun
            }

            var committed = _committed();
            if (reader)
            {
                _readers[committed.TxId] = _readers.TryGetValue(committed.TxId, out var live)
                    ? (live.Count + 1, live.Since)
                    : (1, _timestamp());
            }

            _liveTransactions++;
            generation = EnterGenerationLocked(); // PT7: spilled slots it may read outlive their removal until it ends
            return committed;
        }
    }

    /// <summary>
    /// A read transaction on <paramref name="snapshot"/> that began in <paramref name="generation"/>
    /// ended. True once, for the last transaction to end after the close: its caller hands the
    /// store's resources back (LC6).
    /// </summary>
    public bool ExitReader(long snapshot, long generation) => Exit(snapshot, generation);

    /// <summary>An explicit write transaction ended (as <see cref="ExitReader"/>).</summary>
    public bool ExitWriter(long generation) => Exit(null, generation);

    private bool Exit(long? snapshot, long generation)
    {
        lock (_lock)
        {
            if (snapshot is { } id)
            {
                var live = _readers[id];
                if (live.Count == 1)
                {
                    _readers.Remove(id);
                }
                else
                {
                    _readers[id] = (live.Count - 1, live.Since);
                }
            }

            ExitGenerationLocked(generation);
            _liveTransactions--;
            var release = _closed && _liveTransactions == 0 && !_resourcesReleased;
            _resourcesReleased |= release;
            return release;
        }
    }

    /// <summary>LC3: registers an explicit commit, or refuses it when the close was requested.</summary>
    public void EnterCommit()
    {
        lock (_lock)
        {
            if (_closeRequested)
            {
                throw _closingError();
            }

            _commitsInProgress++;
        }
    }

    /// <summary>LC3: an explicit commit ended (a close waiting for it goes on).</summary>
    public void ExitCommit()
    {
        lock (_lock)
        {
            if (--_commitsInProgress == 0)
            {
                Monitor.PulseAll(_lock);
            }
        }
    }

    /// <summary>LC1, LC3: from here no write transaction and no explicit commit begins.</summary>
    public void RequestClose()
    {
        lock (_lock)
        {
            _closeRequested = true;
        }
    }

    /// <summary>
    /// Closes the registry: no transaction begins from here. <paramref name="whileClosing"/> runs
    /// under the lock right after that, before the explicit commits under way are waited for
    /// (LC3). False when it was closed already. <paramref name="release"/>: no transaction is
    /// live, so the caller hands the store's resources back now (LC6); otherwise the last
    /// <see cref="ExitReader"/> or <see cref="ExitWriter"/> says so.
    /// </summary>
    public bool TryClose(Action whileClosing, out bool release)
    {
        lock (_lock)
        {
            release = false;
            if (_closed)
            {
                return false;
            }

            _closed = true;
            whileClosing();
            while (_commitsInProgress > 0)
            {
                Monitor.Wait(_lock); // LC3: an explicit commit under way finishes first
            }

            release = _liveTransactions == 0;
            _resourcesReleased = release;
            return true;
        }
    }

    /// <summary>The oldest snapshot a live reader holds and when its first reader began (a timestamp), or null when no reader is live.</summary>
    public (long Snapshot, long Since)? OldestReader()
    {
        lock (_lock)
        {
            if (_readers.Count == 0)
            {
                return null;
            }

            var (snapshot, (_, since)) = _readers.First();
            return (snapshot, since);
        }
    }

    /// <summary>
    /// The newest transaction that no live or future snapshot can be older than: the oldest live
    /// reader's snapshot, or the last committed transaction when no reader is live. Fixed in one
    /// step under the lock <see cref="EnterReader"/> reads the committed state under, so a reader
    /// that registers after this call sees this transaction or a later one (FL1 in
    /// Flushing/DataFileFlusher.cs, A5 in Allocation/PageAllocator.cs).
    /// </summary>
    public long SnapshotHorizon()
    {
        lock (_lock)
        {
            return SnapshotHorizonLocked();
        }
    }

    private long SnapshotHorizonLocked() => _readers.Count == 0 ? _committed().TxId : _readers.First().Key;
}
