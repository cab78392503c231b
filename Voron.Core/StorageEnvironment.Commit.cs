using System.Diagnostics;
using Voron.Diagnostics;
using Voron.Transactions;

namespace Voron;

public sealed partial class StorageEnvironment
{
    // Commit pipeline.
    //
    //   Prepare (holding _writeLock: T1):
    //     1. tx.PrepareCommit: catalog updated, checksums stamped (T5), pages sorted
    //   WriteAndPublish (in commit order; with async commit on the merger's committer task):
    //     2. Journal.Append(record) — one positional write + fdatasync (J2)   on failure: Fail (fail-stop)
    //     3. PageTable.Publish(tx pages)          (PT2: only after 2 returned)
    //     4. _committed = new state               (new readers see it: T4)
    //     5. flusher.Enqueue(tx)                  (it may copy the pages to the data file from now on)
    //
    // Ordering rules (async commit, Transactions/TransactionMerger.cs):
    //   C1. Journal order is transaction order: WriteAndPublish runs for N before N + 1, and N + 1
    //       is handed to it only after N's WriteAndPublish returned (so N + 1's record is written
    //       after N's flush returned: journal rule J3).
    //   C2. An operation is acknowledged only after WriteAndPublish of its transaction returned,
    //       which implies every earlier record is durable too (C1).
    //   C3. Readers see N only after step 4, i.e. after N is durable.
    //   C4. If N's WriteAndPublish fails, the environment fails (fail-stop) and N + 1 is never
    //       written: its operations fail with EnvironmentFailedException.

    private long _journalWrites;

    /// <summary>How many journal records (each one write + one fdatasync) this environment wrote since it opened.</summary>
    public long JournalWrites => Interlocked.Read(ref _journalWrites);

    /// <summary>Bytes written to the journal since the environment opened (records with headers and padding).</summary>
    public long JournalBytesWritten => _flusher.JournalStatistics().Bytes;

    /// <summary>Time spent encoding journal records (page diffs, LZ4, checksums) since the environment opened.</summary>
    public TimeSpan JournalEncodeTime => _flusher.JournalStatistics().EncodeTime + TimeSpan.FromTicks(Interlocked.Read(ref _diffTicks) * TimeSpan.TicksPerSecond / Stopwatch.Frequency);

    private long _diffTicks;

    /// <summary>Commits an explicit write transaction synchronously (steps 1–5).</summary>
    internal void Commit(LowLevelTransaction transaction)
    {
        ThrowIfUnusable();
        var prepared = Prepare(transaction);
        if (prepared != null)
        {
            WriteAndPublish(prepared);
        }
    }

    /// <summary>Step 1, timing the page diffs as part of the journal's encoding cost.</summary>
    internal PreparedCommit? Prepare(LowLevelTransaction transaction)
    {
        var start = Stopwatch.GetTimestamp();
        var prepared = transaction.PrepareCommit(_options.JournalPageDiffs);
        Interlocked.Add(ref _diffTicks, Stopwatch.GetTimestamp() - start);
        return prepared;
    }

    /// <summary>Steps 2–5 for a prepared transaction; fails the environment if the journal write fails.</summary>
    internal void WriteAndPublish(PreparedCommit prepared)
    {
        ThrowIfUnusable();
        var start = Stopwatch.GetTimestamp();
        Journal.JournalPosition end;
        try
        {
            Pager.Reserve(prepared.State.NextPageNumber); // PG5 (Paging/Pager.cs): recovery never has to grow the data file
            end = _flusher.AppendToJournal(prepared.TxId, prepared.State.ToArray(), prepared.JournalPages,
                _options.JournalCompression, sync: _options.Durability == DurabilityMode.Durable);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException || Journal.Failure != null)
        {
            // Fail-stop after any failed write or flush of the journal, whatever the exception's
            // type (the journal refuses appends from then on). An exception thrown before anything
            // was written (a record too large) leaves the store usable and reaches the caller.
            Fail(e);
            throw new EnvironmentFailedException(Path, e);
        }
        finally
        {
            prepared.ReleaseDiffArena(); // the record is written (or never will be): its diffs are dead
        }

        Interlocked.Increment(ref _journalWrites);
        var tag = VoronMetrics.StoreTag(Path);
        VoronMetrics.JournalFlushMilliseconds.Record(Stopwatch.GetElapsedTime(start).TotalMilliseconds, tag);
        VoronMetrics.JournalWriteBytes.Record(prepared.Bytes, tag);

        PageTable.Publish(prepared.TxId, prepared.Pages, prepared.FreedPages);
        _committed = new CommittedState(prepared.TxId, prepared.State, prepared.FreeSpace, end);
        _flusher.Enqueue(new UnflushedTransaction(prepared.TxId, [.. prepared.Pages.Select(p => p.Key), .. prepared.FreedPages], prepared.Bytes, prepared.State, end));
    }
}
