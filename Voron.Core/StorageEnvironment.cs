using Voron.Allocation;
using Voron.Diagnostics;
using Voron.Header;
using Voron.Flushing;
using Voron.Journal;
using Voron.Paging;
using Voron.Platform;
using Voron.Platform.Memory;
using Voron.Transactions;

namespace Voron;

/// <summary>
/// An open store: one directory (or one in-memory store) with its data file, headers and journal.
/// Open it once per process — a second opener, in this process or another, gets
/// <see cref="StoreLockedException"/>. Thread-safe; transactions are not (one caller at a time each).
/// </summary>
/// <remarks>
/// Reading the source in call order: <see cref="Open"/> (this file and StorageEnvironment.Open.cs:
/// headers, data file, recovery) → <see cref="BeginWrite"/> → <see cref="Tree.Put"/> (Trees/BTree)
/// → <see cref="WriteTransaction.Commit"/> (Transactions/CommitPipeline.cs, Journal/JournalWriter) →
/// Flushing/DataFileFlusher (journal → data file → header) → recovery on the next open.
/// </remarks>
// Lifecycle: what Dispose does with what is pending (rules LC1..LC7; tests: Engine/DisposeTests,
// Crash/DisposeWhilePendingTests).
//
//   Close(flush):
//     1. closing: new explicit commits are refused (ObjectDisposedException), and the closing
//        token wakes every wait for the write lock (BeginWrite / BeginWriteAsync callers, the
//        merger's writer)                                                                  (LC1)
//     2. the merger: the batch it is running and its in-flight commit finish; every operation
//        still queued fails with ObjectDisposedException; its writer ends                 (LC2, M3)
//     3. disposed: every later call on the store or on a live transaction throws
//        ObjectDisposedException; an explicit commit already under way is waited for     (LC3)
//     4. the background flush stops; a final flush only when no transaction is live and the
//        store has not failed; a flush under way on another thread is waited for           (LC5)
//     5. a store made by CreateInMemory deletes its files                                 (LC7)
//     6. the lock file is released; the mapping and the journal when the last live
//        transaction is disposed (now, if none is)                                        (LC6)
//
//   LC1. Dispose never waits for anything that may be waiting for it: not for the write lock,
//       not for an explicit write transaction to end, not for readers, not for queued
//       operations. So a thread that holds a write transaction (or a reader) and disposes the
//       store returns, and so does one whose merged operation is queued behind its own
//       transaction.
//   LC2. Merged operations complete deterministically: the batch being executed commits and is
//       acknowledged (or fails); every operation not yet started fails with ObjectDisposedException.
//   LC3. An explicit write transaction open at Dispose is rolled back: its later calls, Commit
//       included, throw ObjectDisposedException. One whose Commit began before Dispose commits
//       (and is durable) before Dispose returns.
//   LC4. Dispose from inside a merged operation would wait for its own batch: it throws
//       InvalidOperationException instead, as does BeginWrite there (T1 would wait forever).
//   LC5. Dispose waits only for work that ends on its own: the running batch, the in-flight and
//       explicit commits under way, a flush under way. Delegates must not block on the store's
//       disposal.
//   LC6. Readers opened before Dispose keep the mapping alive until they are disposed (their
//       calls throw ObjectDisposedException, but spans they already hold stay readable).
//   LC7. A store opened from StorageEnvironmentOptions.CreateInMemory is gone once disposed: its
//       files are deleted, so their memory goes back to the OS as soon as the last reader of
//       LC6 ends (an in-memory file is freed when deleted and its last handle closed). A close
//       without the final flush (a simulated crash) keeps them, for the reopen that recovers.

public sealed partial class StorageEnvironment : IDisposable
{
    private readonly StorageEnvironmentOptions _options;
    private readonly IFileSystem _fileSystem;
    private readonly StoreLayout _layout;
    private readonly IDisposable _lock;
    private readonly SemaphoreSlim _writeLock = new(1, 1); // T1
    private readonly FailureSink _failures;
    private readonly CommitPipeline _pipeline;
    private readonly DataFileFlusher _flusher;
    private readonly TransactionMerger _merger;
    private readonly TransactionRegistry _registry; // who is live: readers, generations, flush pin, admission across Dispose
    private readonly TransactionSeams _transactions; // what every LowLevelTransaction reads and writes through
    private int _closing;
    private readonly CancellationTokenSource _closingSource = new(); // LC1: wakes waits for the write lock

    private volatile CommittedState _committed;

    /// <summary>The store's subkeys when it is sealed (SL2), else null; backups and restores of it open its journal with them.</summary>
    internal Sealing.StoreKey? SealKey { get; private init; }

    /// <summary>The header's seal fields when the store is sealed (backups keep its salt and algorithm), else null.</summary>
    internal HeaderSeal? Seal { get; private init; }

    /// <summary>The journal writer's seal (SL8), disposed after the writer.</summary>
    private Journal.JournalSealing? JournalSealing { get; init; }
    private readonly CommitWaiters _commitWaiters = new();

    private StorageEnvironment(StorageEnvironmentOptions options, IDisposable storeLock, Pager pager, JournalWriter journal,
        CommittedState committed, HeaderRecord header)
    {
        _options = options;
        _fileSystem = options.FileSystem;
        _layout = new StoreLayout(options.Directory);
        _lock = storeLock;
        Pager = pager;
        Journal = journal;
        _committed = committed;
        var scratchSeal = header.Seal is { } seal // SC5: spilled versions sealed under a key that dies with the process
            ? new Sealing.SealedPages(Sealing.StoreKey.CreateEphemeral(header.StoreId, seal.Algorithm), options.DecryptedPageCacheSize / 4, ownsKey: true)
            : null;
        PageTable = new PageTable(new Scratch.ScratchFile(_fileSystem, _layout.ScratchFile, options.MaxDataFileSize, scratchSeal), options.MaxPageVersionMemory,
            new PageBufferPool(options.RecyclePageBuffers ? PageBufferPoolCapacity(options.MaxPageVersionMemory) : 0));
        // The subsystems below get what they need as seams, never the environment (Pebble's
        // commitEnv): nothing below this type points back up to it.
        _registry = new TransactionRegistry(() => _committed, () => new ObjectDisposedException(GetType().FullName), Disposing);
        _transactions = new TransactionSeams
        {
            Pager = pager,
            PageTable = PageTable,
            AllocationPolicy = cursor => Allocation.Policies.AllocationPolicies.Create(_options, cursor),
            ReleaseHorizon = _registry.SnapshotHorizon, // A5
        };
        _failures = new FailureSink(options.Directory, () => _options.OnFailure)
        {
            Failed = () => _commitWaiters.Terminate(() => new EnvironmentFailedException(Path, _failures!.Failure!)), // CW1
        };
        _flusher = new DataFileFlusher(new FlusherSeams
        {
            Journal = journal,
            PageTable = PageTable,
            Pager = pager,
            WriteHeader = record => HeaderFile.Write(_fileSystem, _layout, record),
            Failures = _failures,
            PinFlushHorizon = _registry.PinFlushHorizon,
            UnpinFlushHorizon = _registry.UnpinFlushHorizon,
            CaptureRetention = _registry.CaptureRetention,
            RetireGeneration = _registry.RetireGeneration,
            OldestSnapshotPin = () => OldestSnapshotPin,
            IsDisposed = () => IsDisposed,
            Disposed = () => new ObjectDisposedException(GetType().FullName),
            Path = Path,
        }, header, options);
        InPlace = new InPlacePages(pager, _flusher.Untouched,
            _options.Durability == DurabilityMode.Durable && _options.JournalArchiveDirectory == null ? _options.InPlaceNewPagesThreshold : long.MaxValue); // IP2, IP6
        _pipeline = new CommitPipeline(new CommitSeams
        {
            ThrowIfUnusable = ThrowIfUnusable,
            Fail = _failures.FailWith,
            PrepareTransaction = transaction => transaction.PrepareCommit(_options.JournalPageDiffs),
            ReserveDataFile = pager.Reserve,
            AppendToJournal = (txId, state, pages) =>
            {
                var location = journal.Append(txId, state, pages, _options.JournalCompression,
                    sync: _options.Durability == DurabilityMode.Durable, _options.Clock.GetUtcNow().ToUnixTimeMilliseconds()); // J13: no lock here
                NoteAppended(location); // TR1
                return location;
            },
            JournalFailed = () => journal.Failure != null,
            WriteInPlace = InPlace.Write,
            Publish = prepared => PageTable.Publish(prepared.TxId, prepared.PublishedPages, prepared.FreedPages, _registry.CaptureRetention), // IP4
            QueueForFlush = _flusher.Enqueue,
            MakeVisible = MakeVisible,
            Hook = step => _options.CommitHook?.Invoke(step),
            Path = Path,
        });
        _merger = new TransactionMerger(_pipeline, new MergerSeams
        {
            Failures = _failures,
            ThrowIfUnusable = ThrowIfUnusable,
            WriteLock = _writeLock,
            Closing = _closingSource.Token,
            EnterGeneration = _registry.EnterGeneration,
            ExitGeneration = _registry.ExitGeneration,
            Committed = () => _committed,
            BeginTransaction = (committed, previous) => new LowLevelTransaction(_transactions, committed, writable: true, previous),
            OperationView = transaction => new WriteTransaction(this, transaction, merged: true),
            Disposing = () => new ObjectDisposedException(nameof(StorageEnvironment), "The store is being disposed; it accepts no more writes."),
            Path = Path,
        }, options);
    }

    /// <summary>The store's directory.</summary>
    public string Path => _options.Directory;

    /// <summary>The id of the last committed transaction (0 for a new store).</summary>
    public long LastCommittedTransactionId => _committed.TxId;

    /// <summary>
    /// Completes when a transaction with an id above <paramref name="afterTransactionId"/> is
    /// committed and visible to readers (visible means durable: C3), at once if one is already. For
    /// followers of the store's changes: read, remember the read transaction's id, wait past it.
    /// </summary>
    /// <param name="afterTransactionId">Usually the id of the last read transaction (<see cref="ReadTransaction.Id"/>) or <see cref="LastCommittedTransactionId"/>.</param>
    /// <param name="cancellationToken">Ends the wait with <see cref="OperationCanceledException"/>.</param>
    /// <exception cref="ObjectDisposedException">The store is disposed (before or during the wait).</exception>
    /// <exception cref="EnvironmentFailedException">The store failed (fail-stop) before such a commit: none will come until it is reopened.</exception>
    public Task WaitForCommitAsync(long afterTransactionId, CancellationToken cancellationToken = default)
    {
        if (_committed.TxId > afterTransactionId)
        {
            return Task.CompletedTask;
        }

        ObjectDisposedException.ThrowIf(IsDisposed, this);
        return _commitWaiters.WaitAsync(() => _committed.TxId, afterTransactionId, cancellationToken);
    }

    /// <summary>C3: readers see the commit from here; then waiters for it wake (CW1, CW2).</summary>
    private void MakeVisible(CommittedState committed)
    {
        _committed = committed;
        _commitWaiters.Signal();
    }

    /// <summary>The id of the last transaction the data file holds and has synced.</summary>
    public long LastFlushedTransactionId => _flusher.FlushedTxId;

    /// <summary>Background flushes asked for and not yet started (tests: the flusher's wake rule).</summary>
    internal int PendingFlushWakes => _flusher.PendingWakes;

    internal StorageEnvironmentOptions Options => _options;

    internal IFileSystem FileSystem => _fileSystem;

    internal StoreLayout Layout => _layout;

    internal Pager Pager { get; }

    /// <summary>The commit's in-place writer of new pages (Transactions/InPlacePages.cs).</summary>
    internal InPlacePages InPlace { get; }

    internal PageTable PageTable { get; }

    /// <summary>
    /// PB3: buffers the pool keeps, each way — as many as the page-version budget holds, at most
    /// 64 MiB worth (8,192 pages), so an idle store holds no more than that beyond its versions.
    /// </summary>
    internal static int PageBufferPoolCapacity(long maxPageVersionMemory) => (int)(Math.Min(maxPageVersionMemory, 64L << 20) / Constants.PageSize);

    internal JournalWriter Journal { get; }

    internal CommittedState Committed => _committed;

    /// <summary>Opens (creating if needed) the store the options describe, recovering from the journal.</summary>
    public static StorageEnvironment Open(StorageEnvironmentOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return OpenCore(options);
    }

    /// <summary>Begins a read transaction: a stable snapshot of the last committed state. Never blocks.</summary>
    public ReadTransaction BeginRead()
    {
        var committed = _registry.EnterReader(out var generation);
        return new ReadTransaction(this, new LowLevelTransaction(_transactions, committed, writable: false) { Generation = generation });
    }

    /// <summary>
    /// Begins the write transaction, waiting while another is active (one at a time: T1).
    /// Throws <see cref="TimeoutException"/> after <paramref name="timeout"/> (default: wait forever).
    /// </summary>
    public WriteTransaction BeginWrite(TimeSpan? timeout = null)
    {
        ThrowIfReplica(nameof(BeginWrite));
        return BeginWriteCore(timeout);
    }

    /// <summary>The write lock and a write transaction, on a replica too (RE1): for checks that only read, never commit (CheckIntegrity).</summary>
    internal WriteTransaction BeginWriteCore(TimeSpan? timeout = null)
    {
        ThrowIfUnusable();
        ThrowIfInsideMergedOperation(nameof(BeginWrite));
        try
        {
            if (!_writeLock.Wait(timeout ?? Timeout.InfiniteTimeSpan, _closingSource.Token))
            {
                throw new TimeoutException($"Another write transaction on '{Path}' was still active after {timeout}.");
            }
        }
        catch (OperationCanceledException)
        {
            throw Disposing(); // LC1
        }

        return StartWrite();
    }

    /// <summary>Begins the write transaction, waiting asynchronously while another is active.</summary>
    public async Task<WriteTransaction> BeginWriteAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfUnusable();
        ThrowIfReplica(nameof(BeginWriteAsync));
        ThrowIfInsideMergedOperation(nameof(BeginWriteAsync));
        using var either = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closingSource.Token);
        try
        {
            await _writeLock.WaitAsync(either.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw Disposing(); // LC1
        }

        return StartWrite();
    }

    private ObjectDisposedException Disposing() => new(nameof(StorageEnvironment), $"The store at '{Path}' is being disposed; it accepts no more write transactions.");

    /// <summary>LC4: the merger's writer holds the write lock while it runs an operation; waiting for it there waits forever.</summary>
    private void ThrowIfInsideMergedOperation(string what)
    {
        if (_merger.IsRunningOperationOnThisThread)
        {
            throw new InvalidOperationException($"{what} was called from inside a merged operation, which would wait for its own batch forever (LC4). Use the transaction the operation was given.");
        }
    }

    /// <summary>
    /// Submits a write operation to the transaction merger and completes when it is durable.
    /// Concurrent operations share transactions and journal flushes; an operation that throws
    /// fails alone (its task faults with its exception) and the others still commit. The delegate
    /// may run more than once (when a batch-mate throws), so it must have no side effects outside
    /// the transaction; it must not commit or dispose the transaction. Cancellation applies until
    /// the operation starts.
    /// </summary>
    public Task ExecuteAsync(Action<WriteTransaction> operation, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(operation);
        ThrowIfReplica(nameof(ExecuteAsync));
        return _merger.EnqueueAsync(operation, cancellationToken);
    }

    /// <summary>
    /// As <see cref="ExecuteAsync(Action{WriteTransaction}, CancellationToken)"/>, returning the
    /// delegate's result once durable. The delegate must be synchronous: one returning a task or
    /// value task is refused with <see cref="ArgumentException"/> (an <c>async</c> lambda does not
    /// compile here: it binds to an overload marked as an error).
    /// </summary>
    public Task<T> ExecuteAsync<T>(Func<WriteTransaction, T> operation, CancellationToken cancellationToken = default)
    {
        ThrowIfReplica(nameof(ExecuteAsync));
        return _merger.EnqueueAsync(operation, cancellationToken);
    }

    /// <summary>
    /// The SQLite VFS's commit (MG4): as <see cref="ExecuteAsync(Action{WriteTransaction}, CancellationToken)"/>,
    /// but on an idle store the operation runs and is prepared on this thread and
    /// <paramref name="write"/> is its journal write, which the caller runs once it released its
    /// own lock (<c>write?.Run()</c>); <paramref name="acknowledged"/> gets the outcome on the thread
    /// that completes it, after the task completed (awaiting the task does not wait for it). With
    /// <paramref name="mayRunHere"/> false it is always queued.
    /// </summary>
    internal Task ExecuteDeferred(Action<WriteTransaction> operation, Action<Exception?> acknowledged, bool mayRunHere, out Transactions.TransactionMerger.CallerWrite? write)
    {
        ArgumentNullException.ThrowIfNull(operation);
        ThrowIfReplica("A write");
        return _merger.EnqueueDeferred(operation, acknowledged, mayRunHere, out write);
    }

    // M6: an async lambda prefers these overloads to the ones above, so `ExecuteAsync(async tx => ...)`
    // is a compile-time error naming the reason instead of a batch that commits at the first await.

    /// <summary>Refused: a merged operation must be synchronous (M6). Use <see cref="BeginWriteAsync"/> across awaits.</summary>
    [Obsolete(AsyncOperationRefusal.Message, error: true)]
    [System.ComponentModel.EditorBrowsable(System.ComponentModel.EditorBrowsableState.Never)]
    public Task ExecuteAsync(Func<WriteTransaction, Task> operation, CancellationToken cancellationToken = default) =>
        throw AsyncOperationRefusal.Refuse(nameof(operation));

    /// <summary>Refused: a merged operation must be synchronous (M6). Use <see cref="BeginWriteAsync"/> across awaits.</summary>
    [Obsolete(AsyncOperationRefusal.Message, error: true)]
    [System.ComponentModel.EditorBrowsable(System.ComponentModel.EditorBrowsableState.Never)]
    public Task<T> ExecuteAsync<T>(Func<WriteTransaction, Task<T>> operation, CancellationToken cancellationToken = default) =>
        throw AsyncOperationRefusal.Refuse(nameof(operation));

    /// <summary>Refused: a merged operation must be synchronous (M6). Use <see cref="BeginWriteAsync"/> across awaits.</summary>
    [Obsolete(AsyncOperationRefusal.Message, error: true)]
    [System.ComponentModel.EditorBrowsable(System.ComponentModel.EditorBrowsableState.Never)]
    public Task ExecuteAsync(Func<WriteTransaction, ValueTask> operation, CancellationToken cancellationToken = default) =>
        throw AsyncOperationRefusal.Refuse(nameof(operation));

    /// <summary>Refused: a merged operation must be synchronous (M6). Use <see cref="BeginWriteAsync"/> across awaits.</summary>
    [Obsolete(AsyncOperationRefusal.Message, error: true)]
    [System.ComponentModel.EditorBrowsable(System.ComponentModel.EditorBrowsableState.Never)]
    public Task<T> ExecuteAsync<T>(Func<WriteTransaction, ValueTask<T>> operation, CancellationToken cancellationToken = default) =>
        throw AsyncOperationRefusal.Refuse(nameof(operation));

    private WriteTransaction StartWrite()
    {
        try
        {
            ThrowIfUnusable();
            WaitForInFlightCommit();
            var committed = _registry.EnterWriter(out var generation); // LC1: refused once Dispose has begun
            return new WriteTransaction(this, new LowLevelTransaction(_transactions, committed, writable: true) { Generation = generation });
        }
        catch
        {
            _writeLock.Release();
            throw;
        }
    }

    /// <summary>
    /// Copies every committed page that no live reader still needs from the journal side into
    /// the data file, syncs it, writes the header and recycles journals (what the background
    /// flush does). Returns the statistics of the flush, or null when there was nothing to do.
    /// </summary>
    public FlushStatistics? FlushToDataFile()
    {
        ThrowIfUnusable();
        return _flusher.Flush();
    }

    /// <summary>An explicit write transaction starts from the committed state: let the merger's in-flight commit land first.</summary>
    private void WaitForInFlightCommit()
    {
        // The in-flight commit's outcome never throws here: a clean failure (C5) was its
        // operations' business, and a failure of the store is what the check below reports.
        _merger.ClaimInFlight().GetAwaiter().GetResult(); // MG4: running a caller-run write nobody has run yet
        ThrowIfUnusable();
    }

    /// <summary>A read or explicit write transaction ended: it leaves the registry, and a writer gives the write lock back (T1).</summary>
    internal void ExitTransaction(LowLevelTransaction transaction)
    {
        var release = transaction.IsWritable
            ? _registry.ExitWriter(transaction.Generation)
            : _registry.ExitReader(transaction.Committed.TxId, transaction.Generation);
        if (transaction.IsWritable)
        {
            _writeLock.Release();
        }

        if (release)
        {
            ReleaseResources(); // LC6: the last transaction live after Dispose
        }
    }

    /// <summary>
    /// What the oldest live reader holds back (null when no reader is live): its snapshot, how
    /// long that snapshot has been held, and the commits after it that cannot be flushed to the
    /// data file until it ends (they stay in memory and in the journal). For monitoring; see
    /// <see cref="StorageEnvironmentOptions.OnLongReader"/>.
    /// </summary>
    public SnapshotPin? OldestSnapshotPin
    {
        get
        {
            if (_registry.OldestReader() is not { } oldest)
            {
                return null;
            }

            var (snapshot, since) = oldest;
            var (transactions, bytes) = _flusher.HeldBackAfter(snapshot);
            return new SnapshotPin(snapshot, System.Diagnostics.Stopwatch.GetElapsedTime(since), transactions, bytes);
        }
    }

    internal bool IsDisposed => _registry.IsClosed;

    internal void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(IsDisposed, this);
        if (_failures.Failure is { } failure)
        {
            throw new EnvironmentFailedException(Path, failure);
        }
    }

    /// <summary>
    /// Fail-stop: refuse writes until reopened (C5, FL6). The first cause is kept; it is reported
    /// once — <see cref="IsFailed"/> and <see cref="Failure"/>, the <c>voron.store.failures</c>
    /// metric and <see cref="StorageEnvironmentOptions.OnFailure"/> (on the thread pool, outside
    /// every lock of the engine).
    /// </summary>
    internal void Fail(Exception cause) => _failures.Fail(cause);

    /// <summary>
    /// Whether the store has failed (fail-stop): it serves reads of the last committed state but
    /// refuses every write with <see cref="EnvironmentFailedException"/> until it is disposed and
    /// opened again, which recovers every acknowledged commit. For health checks; see
    /// <see cref="Failure"/> for why.
    /// </summary>
    public bool IsFailed => _failures.Failure != null;

    /// <summary>
    /// The exception that failed the store (the first one: a failed journal write or flush, an
    /// error after a commit's journal write, a failed background flush), or null while it is
    /// healthy. <see cref="EnvironmentFailedException"/>s thrown to callers carry it as their
    /// inner exception.
    /// </summary>
    public Exception? Failure => _failures.Failure;

    /// <summary>The transaction merger's state in one line (hang reports in tests, debugging).</summary>
    internal string DescribeMerger() => _merger.Describe();

    /// <summary>
    /// Closes the store. Committed data is flushed to the data file first when no transaction is
    /// live and the store has not failed. Transactions still live become unusable
    /// (<see cref="ObjectDisposedException"/>); the mapping they read from is released when the
    /// last of them is disposed, so a straggling reader never touches unmapped memory.
    /// </summary>
    public void Dispose() => Close(flush: true);

    /// <summary>
    /// Closes the store as if the process had died: no final flush, so the next open must
    /// recover from the journal. For recovery tests.
    /// </summary>
    internal void CloseWithoutFlush() => Close(flush: false);

    private void Close(bool flush)
    {
        ThrowIfInsideMergedOperation("Dispose");
        StopFollowing(); // RE2: the apply under way ends first; none starts after
        if (Interlocked.Exchange(ref _closing, 1) == 0)
        {
            _registry.RequestClose(); // LC1, LC3
            _closingSource.Cancel(); // LC1: nobody waits for the write lock any more
            _merger.Dispose(); // LC2: drains while the environment still accepts its commits (M3)
        }

        // From here no transaction begins; commit waits end (CW1) before an explicit commit under
        // way is waited for (LC3); release: no transaction is live, so the resources go now (LC6).
        var closed = _registry.TryClose(
            whileClosing: () => _commitWaiters.Terminate(() => new ObjectDisposedException(nameof(StorageEnvironment), "The store was disposed while waiting for a commit.")),
            out var release);
        if (!closed)
        {
            return;
        }

        StopTimelyRelease(); // TR5: before the flusher it calls stops
        _flusher.Dispose();
        var flushed = false;
        if (flush && release && _failures.Failure == null)
        {
            try
            {
                if (_options.Durability == DurabilityMode.Lazy)
                {
                    Journal.Sync(); // J13: the writer takes its own lock
                }

                _flusher.Flush();
                flushed = true;
            }
            catch (Exception e) when (e is IOException or EnvironmentFailedException)
            {
                // Nothing is lost: the journal still holds every committed transaction, and the
                // next open recovers it. Dispose must not throw, nor keep the store locked.
            }
        }

        _flusher.Close(); // LC5: a flush under way on another thread ends first; none starts after
        if (flushed && _failures.Failure == null)
        {
            Pager.TrimOnDispose(_committed.State.NextPageNumber); // PG6: the file back to its high-water mark
        }
        if (flush)
        {
            DeleteScratchFile(); // SC3: it holds nothing durable; a crash (flush: false) leaves it for the next open to delete
        }

        StopShipping(); // SH1: the files not shipped yet wait in the archive for the next open
        VoronMetrics.Forget(this);
        if (flush && _options.DeleteFilesOnDispose && _options.FileSystem is InMemoryFileSystem memory)
        {
            memory.Dispose(); // LC7: before the lock goes, so an open of the same options never sees them
        }

        _lock.Dispose();

        if (release)
        {
            ReleaseResources();
        }
    }

    private void DeleteScratchFile()
    {
        try
        {
            PageTable.Scratch.Delete();
        }
        catch (IOException)
        {
            // Nothing is lost: the next open deletes it.
        }
    }

    private void ReleaseResources()
    {
        PageTable.Dispose(); // the scratch mapping: readers that outlived Dispose may still read spilled versions (LC6)
        Journal.Dispose();
        JournalSealing?.Dispose(); // after the writer that uses it
        Pager.Dispose(); // its sealed pages (PG7) make AEADs from the key on each new reading thread
        SealKey?.Dispose(); // SL10
        Options.ReleaseSealingKey(); // SL10: the open's copy of the user's key
    }
}
