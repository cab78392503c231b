using System.Diagnostics;
using Voron.Diagnostics;
using Voron.Journal;

namespace Voron.Transactions;

// Design notes — the commit pipeline.
//
// The steps of a commit, shared by explicit write transactions (WriteTransaction.Commit) and the
// transaction merger's batches. The pipeline is given what it needs as functions (CommitSeams)
// and never sees the store, so its ordering rules are tested against fakes
// (Voron.Tests/Core/Merging/CommitPipelineTests.cs) as well as through whole stores.
//
//   Prepare (holding _writeLock: T1):
//     1. tx.PrepareCommit: catalog updated, checksums stamped (T5), pages sorted; the
//        transaction refuses changes from here on (T7)
//   WriteAndPublish (in commit order; with async commit on the merger's committer task):
//     2. Journal.Append(record) — one positional write + fdatasync (J2); before it, a large
//        commit's new pages may be written in place and the data file synced (IP1–IP7,
//        Transactions/InPlacePages.cs), the record naming them instead of carrying them
//     3. PageTable.Publish(tx pages)          (PT2: only after 2 returned; may prune and
//        spill to the scratch file: PT6, PT8)
//     4. flusher.Enqueue(tx)                  (queued, but no flush horizon passes the
//                                              committed id yet: FL9)
//     5. committed state = new state          (new readers see it: T4; from now on a flush
//                                              may copy the pages to the data file)
//   CommitStep names the points between these steps (the test hook's points).
//
// Ordering rules (async commit, Transactions/TransactionMerger.cs):
//   C1. Journal order is transaction order: WriteAndPublish runs for N before N + 1, and N + 1
//       is handed to it only after N's WriteAndPublish returned (so N + 1's record is written
//       after N's flush returned: journal rule J3).
//   C2. An operation is acknowledged only after WriteAndPublish of its transaction returned,
//       which implies every earlier record is durable too (C1).
//   C3. Readers see N only after step 5, i.e. after N is durable.
//   C4. If N's WriteAndPublish fails, N + 1 is never written as built: if the store failed,
//       its operations fail with EnvironmentFailedException; if N failed cleanly (C5), N + 1's
//       operations run again on the committed state, without N (M1).
//   C5. A failed commit leaves the store fully usable or fails it, nothing in between. It is
//       clean — the exception reaches the committer, the store stays usable, its committed
//       state, page table and journal untouched — when it fails before anything of the record
//       was written: in step 1, or in step 2 before the journal's first write (a record over
//       the size limit, an out-of-memory while encoding it; the journal says so by not being
//       failed, J7), except a failed in-place write of new pages (IP2), which fails the store:
//       its data-file sync may have consumed the error of a flush's write. Any failure from the
//       journal's first write on — the write, the flush,
//       publishing, the state swap, the hand-over to the flusher, whatever the exception's
//       type — fails the store (fail-stop, FailureSink.Fail): the journal may hold a record the
//       memory state does not, so only recovery can tell what is committed.

/// <summary>The steps of a commit (1–5 above) and the order rules C1–C5 that govern them.</summary>
internal sealed class CommitPipeline
{
    private readonly CommitSeams _seams;
    private long _journalWrites;
    private long _diffTicks;

    public CommitPipeline(CommitSeams seams)
    {
        _seams = seams;
    }

    /// <summary>How many journal records (each one write + one fdatasync) the pipeline wrote.</summary>
    public long JournalWrites => Interlocked.Read(ref _journalWrites);

    /// <summary>Time spent computing page diffs in step 1 (part of the journal's encoding cost).</summary>
    public TimeSpan DiffTime => TimeSpan.FromTicks(Interlocked.Read(ref _diffTicks) * TimeSpan.TicksPerSecond / Stopwatch.Frequency);

    /// <summary>
    /// Commits an explicit write transaction synchronously (steps 1–5); C5 for its failures. The
    /// caller holds the write lock (T1) and has registered the commit with the store (LC3).
    /// </summary>
    public void Commit(LowLevelTransaction transaction)
    {
        var prepared = Prepare(transaction);
        if (prepared != null)
        {
            WriteAndPublish(prepared);
        }
    }

    /// <summary>Step 1, timing the page diffs as part of the journal's encoding cost. A failure here is clean (C5).</summary>
    public PreparedCommit? Prepare(LowLevelTransaction transaction)
    {
        _seams.Hook(CommitStep.Prepare);
        var start = Stopwatch.GetTimestamp();
        var prepared = _seams.PrepareTransaction(transaction);
        Interlocked.Add(ref _diffTicks, Stopwatch.GetTimestamp() - start);
        _seams.Hook(CommitStep.Prepared);
        return prepared;
    }

    /// <summary>
    /// Steps 2–5 for a prepared transaction. Throws the exception itself when the commit failed
    /// cleanly (nothing written, store usable), <see cref="EnvironmentFailedException"/> when it
    /// failed the store (C5).
    /// </summary>
    public void WriteAndPublish(PreparedCommit prepared)
    {
        _seams.ThrowIfUnusable();
        var start = Stopwatch.GetTimestamp();
        JournalRecordLocation record;
        try
        {
            _seams.Hook(CommitStep.JournalWrite);
            try
            {
                _seams.ReserveDataFile(prepared.State.NextPageNumber); // PG5 (Paging/Pager.cs): recovery never has to grow the data file
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // A full disk (or any I/O failure) while growing the data file fails the store
                // (docs/core.md: it refuses writes until reopened, and reopening needs no more space).
                throw _seams.Fail(e);
            }

            IReadOnlyList<JournalPage> entries;
            try
            {
                entries = _seams.WriteInPlace(prepared); // IP1–IP3: new pages in the data file, synced, before the record
            }
            catch (Exception e)
            {
                // C5: the data file's sync may have consumed the error of a flush's earlier write
                // (a failed fdatasync is not reported twice), so the store cannot go on.
                throw _seams.Fail(e);
            }

            record = _seams.AppendToJournal(prepared.TxId, prepared.State.ToArray(), entries);
        }
        catch (Exception e) when (_seams.JournalFailed())
        {
            // C5: the journal's first write was made (it is failed: J7), whatever the exception's
            // type. Anything before it — a record too large, an out-of-memory while encoding — is
            // clean: the exception reaches the committer and the store stays usable.
            throw _seams.Fail(e);
        }
        finally
        {
            prepared.ReleaseDiffArena(); // the record is written (or never will be): its diffs are dead
        }

        try
        {
            _seams.Hook(CommitStep.Journaled);
            _seams.Publish(prepared); // PT2: only after the record is durable
            _seams.Hook(CommitStep.Published);
            // FL9 (Flushing/DataFileFlusher.cs): the flusher has the commit before anyone can see
            // it, so every transaction up to the committed id is queued when a flush pins it.
            _seams.QueueForFlush(prepared.ForFlush(record.End)); // IP4: without the pages written in place
            _seams.Hook(CommitStep.Enqueued);
            _seams.MakeVisible(new CommittedState(prepared.TxId, prepared.State, prepared.FreeSpace, record.End) { CommitTime = record.CommitTime }); // C3
            _seams.Hook(CommitStep.Visible);
        }
        catch (Exception e)
        {
            // C5: the record is in the journal; memory may not match it any more.
            throw _seams.Fail(e);
        }

        Interlocked.Increment(ref _journalWrites);
        VoronMetrics.RecordSafely(() =>
        {
            var tag = VoronMetrics.StoreTag(_seams.Path);
            VoronMetrics.JournalFlushMilliseconds.Record(Stopwatch.GetElapsedTime(start).TotalMilliseconds, tag);
            VoronMetrics.JournalWriteBytes.Record(prepared.Bytes, tag);
        });
    }
}
