namespace Voron.SqliteVfs.Databases;

// Design notes — SQLite's locks and commits mapped onto the store.
//
// A SQLite database is a page file in the store (Voron.Core/PageFiles/PageFileFormat.cs). Every
// connection opens its own sqlite3_file (DatabaseFile); the connections of one database share
// one DatabaseState (this class): its write lock, the chain of commits submitted to the store
// and not yet durable ("in flight"), and a short history of what each commit changed.
//
// What SQLite does, from pager.c and btree.c (rollback-journal modes; WAL is refused, V11):
//   - Every transaction starts with xLock(SHARED), reads 16 bytes at offset 24 (change counter,
//     page count, free list) and drops its page cache when they differ from its copy
//     (sqlite3PagerSharedLock), then reads page 1 if it dropped it (lockBtree).
//   - A writer asks for RESERVED only after that (sqlite3BtreeBeginTrans -> sqlite3PagerBegin):
//     the VFS cannot know at SHARED whether the transaction will write. BEGIN IMMEDIATE and
//     autocommit writes ask at once; a deferred transaction asks at its first write.
//   - sqlite3BtreeBeginTrans retries SQLITE_BUSY only through the busy handler (none unless
//     busy_timeout is set; only when the connection had no read transaction open): the
//     handler sleeps 1, 2, 5, 10 ... 100 ms through the connection's VFS (xSleep), calling xLock
//     again after each sleep, until its sleeps add up to busy_timeout. Microsoft.Data.Sqlite
//     (SqliteDataReader.NextResult, SqliteCommand's prepare) retries a statement that still
//     answers SQLITE_BUSY or SQLITE_LOCKED: sqlite3_reset, Thread.Sleep(150), step again, until
//     CommandTimeout (Default Timeout; 30 s; 0 = no end) has passed. So an xLock that waits is
//     multiplied by the handler's attempts; one that answers BUSY at once under ordinary
//     contention leaves the lock idle while the waiters sleep.
//   - sqlite3_step re-prepares and re-runs a statement that fails with SQLITE_SCHEMA, at once, up
//     to 50 times (vdbeapi.c); OP_Transaction fails with the code xLock returned.
//   - Commit: every dirty page is written (xWrite, page 1 with the change counter + 1), then
//     SQLITE_FCNTL_COMMIT_PHASETWO, then xUnlock(SHARED); an error from PHASETWO fails COMMIT
//     and puts the pager in its error state (cache dropped). Rollback: xUnlock without PHASETWO.
//
// Lock levels of one connection (DatabaseFile), each transition and the method that makes it:
//
//            Lock(SHARED): V2 durable snapshot          Lock(RESERVED): V1 wait, V5 fresh?
//    NONE ------------------------------> SHARED ------------------------------------> RESERVED
//     ^   <-- Unlock(NONE): drop snapshot   |  ^                                         |  |
//     |                                     |  |  Unlock(SHARED): V10 rollback           |  | Lock(EXCLUSIVE)
//     |                                     |  +-----------------------------------------+  v granted at once
//     |                                     |  +-- FileControl(COMMIT_PHASETWO): V7 ------- EXCLUSIVE
//     |     Lock(RESERVED) stale: V6        |                                            (readers read
//     +--- SQLITE_SCHEMA, keep lock as -----+                                             snapshots)
//          a ticket; sqlite3_step re-runs
//
//   DatabaseFile.Lock / Unlock (Databases/DatabaseFile.Locks.cs), DatabaseFile.Commit
//   (Databases/DatabaseFile.Commit.cs); the rules they keep:
//
// V1. Per database one connection holds the write lock (SQLite's RESERVED and above). A free lock
//     goes to the thread that asks first, running or woken, with the line's first taking it
//     ahead of everyone once it has waited 100 ms (WriteLock.cs, WL1–WL4: no lock
//     convoy, no starvation). The line is ordered by when each connection first asked: one that
//     left the line after a slice and comes back within a second keeps its place. Every wait in
//     line is bounded by what the connection set, never multiplied by SQLite's retries:
//     - with PRAGMA busy_timeout > 0, xLock(RESERVED) does not wait: it answers SQLITE_BUSY, and
//       the busy handler's next sleep (xSleep, VfsCallbacks.Sleep -> DatabaseFile.SleepInLine)
//       waits in line instead, ending early only when the lock is handed to it (kept as a V6
//       ticket for the retry that follows at once). A statement waits at most busy_timeout
//       (the sum of the handler's sleeps) plus the time its attempts take;
//     - without one, xLock(RESERVED) waits in line one slice, VoronSqliteOptions.LockTimeout
//       (100 ms), then answers SQLITE_BUSY and Microsoft.Data.Sqlite retries: a blocked writer
//       gives up after at most its command timeout + LockTimeout + 150 ms.
//     A refusal records why in VoronSqlite.LastError (a TimeoutException) and counts in
//     DatabaseState.Waits. SHARED, PENDING and EXCLUSIVE never wait. The VFS's other waits are
//     for the store's journal flush, not for another connection (V7, V10, V15): like a stock
//     database's fsync they are not bounded by busy_timeout.
// V2. xLock(SHARED) takes the connection's snapshot: the newest *durable* state of the database,
//     one store read transaction (it sees durable commits only), with no commit in flight in it.
//     A V6 ticket's re-run takes the newest submitted state instead (V4: it holds the write lock
//     and will write). The snapshot does not move until xUnlock(NONE), except forward under V5
//     and with the connection's own commit.
// V3. A transaction that only reads never waits and never observes a commit that is not yet
//     durable: its snapshot holds none (V2). So nobody else's commit, in flight or failed, can
//     delay or fail a read. The file size and page 1's header fields a reader sees are durable
//     ones too; PRAGMA page_count, freelist_count and data_version inside a write transaction
//     may run ahead of durability (V4).
// V4. A connection that holds the write lock (or a V6 ticket) reads the newest submitted state
//     without waiting: it builds on commits that are not yet durable (V8 fails it if they fail).
// V5. At xLock(RESERVED) a connection whose snapshot predates the newest submitted commit (a
//     durable snapshot under V2 does whenever commits are in flight) is moved forward to it (a
//     fresh snapshot) when none of the commits in between changed the file size, page 1 beyond
//     its change counter, or a block SQLite may hold in its page cache (every block the
//     connection read or wrote since SQLite last dropped its cache, which the VFS sees from the
//     16-byte version read at each SHARED). SQLite's cache is then exactly right for the newest
//     state but for page 1's change counter, which V7 overwrites. BEGIN IMMEDIATE and an
//     autocommit write read no more than page 1 before RESERVED, so they move forward unless a
//     commit in between grew or shrank the file or changed page 1's content. A snapshot whose
//     pages are the newest moves too when the store committed since it was taken (document
//     sessions commit without moving the database), so a writer reads the newest documents.
// V6. A stale connection that cannot move forward keeps the write lock as a ticket and gets
//     SQLITE_SCHEMA, so sqlite3_step re-prepares and re-runs the statement at once; the re-run
//     takes SHARED again, gets a fresh snapshot (nobody else can commit: it holds the ticket)
//     and RESERVED. A connection that comes back to RESERVED without having dropped its
//     snapshot (a deferred transaction that read first) gets SQLITE_BUSY_SNAPSHOT instead (extended
//     code 517; SQLite keeps it because the connection has a read transaction open) — SQLite's own
//     answer in WAL mode, which retry logic keyed on the extended code tells from a busy lock
//     (plain SQLITE_BUSY, V1; Microsoft.Data.Sqlite sees the primary code 5 and retries either
//     until its command timeout, as on a stock WAL database) — and the ticket is released. A ticket unused after
//     TicketLifetime lapses, and so does one whose re-run ends without asking for RESERVED.
// V7. SQLITE_FCNTL_COMMIT_PHASETWO submits the write set (blocks written since RESERVED, those
//     equal to the snapshot's dropped) as a new version whose parent is the newest version,
//     with page 1's change counter (bytes 24..27 and 92..95) set to the version's sequence
//     number. The version goes to the store's transaction merger (so commits of every
//     connection and database, and document sessions, share journal records and flushes), the
//     write lock is released as soon as it is submitted (the next writer builds on it: V4), and
//     PHASETWO — so COMMIT — returns only when the version is durable, or fails with
//     SQLITE_IOERR / SQLITE_FULL / SQLITE_CORRUPT if it failed.
// V8. The merged operation applies a version only if the page file's stored sequence is its
//     parent's; otherwise its parent failed or was dropped from the batch, and it fails too.
//     A database's commits are durable in submission order; a commit built on one that failed
//     fails.
// V9. When a version fails it and every later in-flight version are dropped and the newest
//     state goes back to the last one still standing. Sequence numbers are never reused within
//     a process, so another connection's cache keyed on a failed version's change counter never
//     matches again; the connection that made the failed commit needs V17 as well.
// V10. A write transaction that ends without writing (an empty COMMIT) returns only once its
//     snapshot is durable (it may have read in-flight state under V4); a rollback discards the
//     write set and releases the lock.
// V11. SQLite's rollback journal, statement journals and temporary files live in memory; names
//     ending in -journal or -wal never exist (xAccess), so no hot journal is ever replayed.
//     journal_mode=OFF (no undo for a failed statement) and locking_mode=EXCLUSIVE are refused
//     with an error. journal_mode=WAL is answered as SQLite answers it where WAL cannot be used
//     (an in-memory database): the io methods have no shared memory (version 1), so the mode
//     stays what it was and the pragma returns it, without an error — EF Core's EnsureCreated
//     and Migrate ask for WAL on every new database.
// V12. A name that is an absolute path is an ordinary OS file outside the store, served by
//     SQLite's default VFS (Vfs/OsFiles.cs): VACUUM INTO '/backups/orders.db' and ATTACH of a
//     path. Every other name is a database in the store; a relative path is refused. A
//     database's full pathname (xFullPathname: what sqlite3_db_filename and
//     SqliteConnection.DataSource report) is the store's directory, then
//     DatabaseNames.FullPathDirectory, then its name: absolute, yet never an OS file, because that
//     directory is never created; the VFS reads it back as the database's name.
//
// V13. A version carries, beside its pages, the document changes its SQL transaction made through
//     voron_docs tables of the database (Voron.SqliteVfs.Documents/DocumentCommit.cs, reached
//     through the document hook, DH1). The merged operation writes both into one store
//     transaction: one journal record, durable when COMMIT returns, and a
//     crash or a reader sees all of it or none of it. A transaction that changed only documents
//     is a version without blocks (its sequence moves; page 1 does not).
// V14. The merged operation checks each document change's expected version (SD6) and the unique
//     indexes as a session's save does: the changes are prepared at COMMIT and applied through
//     Voron.Documents' write port (WP1; its WriteBatch, I2–I4). A failure fails the
//     version as a store failure would (V9: later in-flight versions of the database, built on it,
//     fail too); COMMIT fails with SQLITE_CONSTRAINT and VoronSqlite.LastError holds the
//     ConcurrencyException or UniqueConstraintException. SD8 checks the same at xSync, before
//     anything is submitted, so this happens only when a session commits in between.
// V15. Documents follow V2–V4: a connection below RESERVED reads the documents of its durable
//     snapshot and never waits; a writer reads the in-flight versions' documents without waiting,
//     a change it makes to such a document expects what that version wrote, and reading such a
//     document's version or last_modified (assigned when the version applies) waits until that
//     version is durable (and fails, like the writer's COMMIT would, if it failed).
// V16. V5 does not move a snapshot that served a document read before the write lock (a deferred
//     transaction that read first) past a commit that changed documents, a session's included
//     (the store's document version counter moved, or an in-flight version carries documents):
//     the transaction would write over versions it never read. It is a conflict, as V5's: V6's
//     SQLITE_BUSY_SNAPSHOT.
// V17. A COMMIT that fails at SQLITE_FCNTL_COMMIT_PHASETWO (a conflict V14 finds, a stale parent,
//     any store error) fails after SQLite has marked the transaction's pages clean in its cache,
//     and SQLite drops them only for SQLITE_IOERR or SQLITE_FULL. V9's unique sequences do not
//     protect that cache: after V5 moved a writer forward, SQLite's own change counter lags the
//     version's, and the counter it wrote can equal the state the database falls back to. So the
//     connection's next cache check (its read of bytes 24..39) is answered with bytes that differ
//     from SQLite's copy: it drops the cache and reads page 1 again. Without this, the failed
//     commit's rows were visible to the connection and written again by its next commit. A
//     connection with another statement still reading (stepped, not finished or reset) keeps
//     SQLite's lock and makes no cache check until that statement ends, so then the COMMIT fails
//     with SQLITE_IOERR whatever the cause (CommitFailedWhileReadingException, the cause inside):
//     SQLite's pager goes to its error state, every statement of the connection fails until the
//     open one ends, and the cache is dropped then. The VFS learns the connection from
//     SQLITE_FCNTL_PDB and counts its running statements (sqlite3_next_stmt, sqlite3_stmt_busy).
// V18. On a read replica (StorageEnvironment.OpenReplica, RE1) the databases are only read. Reads
//     follow V2: each SQL transaction's SHARED takes the newest transaction the replica applied, and
//     page 1's change counter — the primary's V7 stamp, applied with the page — differs from the
//     counter SQLite cached whenever pages changed since, so a connection left open drops its cache
//     and sees each applied transaction at its next transaction. Writes are refused before anything
//     is written: xLock(RESERVED) answers SQLITE_READONLY before a write set exists (so no xWrite, no
//     journal, no document change follows; BEGIN IMMEDIATE is refused too, as on a read-only file),
//     a store database's rollback journal is never opened, a voron_docs change answers
//     SQLITE_READONLY, and a database the replica does not hold is SQLITE_CANTOPEN, never created.
//     VoronSqlite.LastError says the store is a replica and to write to the primary
//     (ReadReplicaException). SQLite's own read-only flag is left unset so that the refusal reaches
//     the VFS, which can say why; a connection opened with Mode=ReadOnly gets SQLite's refusal.
//
// Fields below are guarded by _sync; DatabaseVersion objects are immutable once submitted.

/// <summary>One SQLite database of a store, shared by every connection to it.</summary>
internal sealed partial class DatabaseState
{
    /// <summary>How many recent commits V5 can look back over; an older snapshot is treated as conflicting.</summary>
    private const int HistoryLength = 4096;

    private readonly object _sync = new();
    private readonly List<DatabaseVersion> _inFlight = [];
    private readonly Queue<VersionSummary> _history = new();
    private DatabaseVersion? _head;
    private long _durableSequence;

    // What TakeSnapshot needs, republished (immutable) after every change under _sync, so a
    // reader's SHARED takes no lock here.
    private volatile Chain _chain;
    private long _lastSequence;
    private long _historyFloor;

    public DatabaseState(StorageEnvironment environment, string name)
    {
        Environment = environment;
        Name = name;
        using var read = environment.BeginRead();
        _durableSequence = read.OpenPageFile(name)?.Sequence ?? 0; // Sequence: internal, see Voron.Core.csproj
        _lastSequence = _durableSequence;
        _historyFloor = _durableSequence;
        _chain = new Chain([], _durableSequence);
    }

    /// <summary>The in-flight versions, oldest first, and the newest submitted sequence.</summary>
    private sealed record Chain(DatabaseVersion[] InFlight, long HeadSequence);

    public StorageEnvironment Environment { get; }

    /// <summary>The database's name: its page file's name in the store.</summary>
    public string Name { get; }

    public WriteLock WriteLock { get; } = new();

    /// <summary>The block buffers of this database's write sets and versions (WB1–WB3).</summary>
    public BlockPool Blocks { get; } = new();

    /// <summary>What V1 let connections wait for <see cref="WriteLock"/> (tests, diagnostics).</summary>
    internal LockWaits Waits { get; } = new();

    /// <summary>The sequence number of the newest submitted state (V2).</summary>
    public long HeadSequence => _chain.HeadSequence;

    /// <summary>Republishes <see cref="_chain"/>; called under _sync after every change.</summary>
    private void Publish() => _chain = new Chain(_inFlight.Count == 0 ? [] : [.. _inFlight], _head?.Sequence ?? _durableSequence);

    private long _advanced;
    private long _reruns;

    /// <summary>How often V5 moved a stale writer's snapshot forward, and how often V6 made a statement run again (tests, diagnostics).</summary>
    internal (long Advanced, long Reruns) StaleWriters => (Interlocked.Read(ref _advanced), Interlocked.Read(ref _reruns));

    internal void CountAdvance() => Interlocked.Increment(ref _advanced);

    private long _commits;
    private long _captureTicks;     // Stopwatch ticks
    private long _durableWaitTicks; // Stopwatch ticks
    private long _readWaits;
    private long _readWaitTicks;    // Stopwatch ticks

    /// <summary>A submitted commit: its time under the write lock and its wait for durability.</summary>
    internal void CountCommit(long captureTicks, long durableWaitTicks)
    {
        Interlocked.Increment(ref _commits);
        Interlocked.Add(ref _captureTicks, captureTicks);
        Interlocked.Add(ref _durableWaitTicks, durableWaitTicks);
    }

    /// <summary>A read that waited for another connection's commit to be durable (V15).</summary>
    internal void CountReadWait(long ticks)
    {
        Interlocked.Increment(ref _readWaits);
        Interlocked.Add(ref _readWaitTicks, ticks);
    }

    /// <summary>The counters of this database since the store opened (<see cref="VoronSqliteRegistration.GetStatistics"/>).</summary>
    internal VoronSqliteStatistics Statistics()
    {
        var writeLock = WriteLock.Statistics;
        return new VoronSqliteStatistics
        {
            Database = Name,
            WriteTransactions = Interlocked.Read(ref _commits),
            CommitCaptureTime = Time(Interlocked.Read(ref _captureTicks)),
            CommitDurableWaitTime = Time(Interlocked.Read(ref _durableWaitTicks)),
            WriteLockAcquisitions = writeLock.Acquisitions,
            WriteLockRefusals = writeLock.Refusals,
            WriteLockWaitTime = Time(writeLock.WaitTicks),
            WriteLockHeldTime = Time(writeLock.HeldTicks),
            WriteLockHandOffs = writeLock.HandOffs,
            WriteLockHandOffTime = Time(writeLock.HandOffTicks),
            WriteLockStarvedHandOffs = writeLock.StarvedHandOffs,
            SnapshotAdvances = Interlocked.Read(ref _advanced),
            StatementReruns = Interlocked.Read(ref _reruns),
            ReadsWaitedForFlush = Interlocked.Read(ref _readWaits),
            ReadFlushWaitTime = Time(Interlocked.Read(ref _readWaitTicks)),
        };

        static TimeSpan Time(long stopwatchTicks) => TimeSpan.FromTicks((long)(stopwatchTicks * ((double)TimeSpan.TicksPerSecond / System.Diagnostics.Stopwatch.Frequency)));
    }

    internal void CountRerun() => Interlocked.Increment(ref _reruns);

    /// <summary>Commits submitted and not yet durable (tests).</summary>
    internal int InFlightCount
    {
        get
        {
            lock (_sync)
            {
                return _inFlight.Count;
            }
        }
    }

    /// <summary>Whether the database exists: durable in the store, or its first commit in flight.</summary>
    public bool Exists()
    {
        lock (_sync)
        {
            if (_head != null)
            {
                return true;
            }
        }

        using var read = Environment.BeginRead();
        return read.OpenPageFile(Name) != null;
    }

    private long _snapshotsTaken;

    /// <summary>
    /// Store snapshots taken (a read transaction begun, the page file opened, its length and
    /// sequence read): one per SQL transaction, shared by its statements (tests count them).
    /// </summary>
    internal long SnapshotsTaken => Interlocked.Read(ref _snapshotsTaken);

    /// <summary>V2: the newest durable state — a store snapshot, nothing in flight. Never waits.</summary>
    public Snapshot TakeDurable()
    {
        Interlocked.Increment(ref _snapshotsTaken);
        var store = Environment.BeginRead(); // a store read transaction sees durable commits only
        try
        {
            var file = store.OpenPageFile(Name);
            return new Snapshot(store, file, [], file?.Sequence ?? 0);
        }
        catch
        {
            store.Dispose();
            throw;
        }
    }

    /// <summary>V4, V5, V6: the newest submitted state — a store snapshot and the in-flight versions after it.</summary>
    public Snapshot TakeNewest()
    {
        for (var attempt = 0; ; attempt++)
        {
            var chain = _chain;
            var inFlight = chain.InFlight;
            var headSequence = chain.HeadSequence;

            // A version leaves the chain only after the store published it, so every version not
            // captured above is in this read transaction, which begins after the capture.
            Interlocked.Increment(ref _snapshotsTaken);
            var store = Environment.BeginRead();
            try
            {
                var file = store.OpenPageFile(Name);
                var baseSequence = file?.Sequence ?? 0;
                if (baseSequence > headSequence)
                {
                    store.Dispose(); // a commit submitted after the capture is durable already: look again
                    continue;
                }

                DatabaseVersion[] versions = inFlight.Length == 0 ? inFlight : [.. inFlight.Where(v => v.Sequence > baseSequence)];
                if (!TryHold(versions))
                {
                    // WB2: a version retired after the capture, so its commit completed and it left
                    // the chain: look again. Each attempt needs another commit to complete in
                    // between, so an endless run of them means a version retired in the chain.
                    store.Dispose();
                    if (attempt == 10_000)
                    {
                        throw new InvalidOperationException($"WB2: database '{Name}': a version in flight retired while the chain still held it.");
                    }

                    continue;
                }

                return new Snapshot(store, file, versions, headSequence);
            }
            catch
            {
                store.Dispose();
                throw;
            }
        }
    }

    /// <summary>WB2: one hold on each of <paramref name="versions"/>, or none (and false) when one of them retired.</summary>
    private static bool TryHold(DatabaseVersion[] versions)
    {
        for (var i = 0; i < versions.Length; i++)
        {
            if (!versions[i].TryAcquire())
            {
                for (var held = 0; held < i; held++)
                {
                    versions[held].Release();
                }

                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// V5: whether a snapshot taken at SHARED may serve a write transaction. The caller holds the
    /// write lock, so the newest state cannot move while it decides.
    /// </summary>
    public Freshness CheckFreshness(Snapshot snapshot, IReadOnlySet<long> cachedBlocks)
    {
        lock (_sync)
        {
            var head = _head?.Sequence ?? _durableSequence;
            if (snapshot.Head is { IsFailed: true } || snapshot.HeadSequence > head)
            {
                return Freshness.Conflict; // the snapshot holds a version that failed (V9)
            }

            if (snapshot.HeadSequence == head)
            {
                return Freshness.Fresh;
            }

            if (snapshot.HeadSequence < _historyFloor)
            {
                return Freshness.Conflict; // older than the history V5 can check
            }

            foreach (var version in _history)
            {
                if (version.Sequence > snapshot.HeadSequence && version.ConflictsWithCache(cachedBlocks))
                {
                    return Freshness.Conflict;
                }
            }

            return Freshness.Advance;
        }
    }
}
