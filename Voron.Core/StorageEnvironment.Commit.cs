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

    /// <summary>Commits an explicit write transaction synchronously (steps 1–5).</summary>
    internal void Commit(LowLevelTransaction transaction)
    {
        ThrowIfUnusable();
        var prepared = transaction.PrepareCommit();
        if (prepared != null)
        {
            WriteAndPublish(prepared);
        }
    }

    /// <summary>Steps 2–5 for a prepared transaction; fails the environment if the journal write fails.</summary>
    internal void WriteAndPublish(PreparedCommit prepared)
    {
        ThrowIfUnusable();
        var start = Stopwatch.GetTimestamp();
        Journal.JournalPosition end;
        try
        {
            end = _flusher.AppendToJournal(prepared.TxId, prepared.State.ToArray(), prepared.JournalPages);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Fail(e);
            throw new EnvironmentFailedException(Path, e);
        }

        Interlocked.Increment(ref _journalWrites);
        var tag = VoronMetrics.StoreTag(Path);
        VoronMetrics.JournalFlushMilliseconds.Record(Stopwatch.GetElapsedTime(start).TotalMilliseconds, tag);
        VoronMetrics.JournalWriteBytes.Record(prepared.Bytes, tag);

        PageTable.Publish(prepared.TxId, prepared.Pages);
        _committed = new CommittedState(prepared.TxId, prepared.State, prepared.FreeSpace, end);
        _flusher.Enqueue(new UnflushedTransaction(prepared.TxId, prepared.Pages.ConvertAll(p => p.Key).ToArray(), prepared.Bytes, prepared.State, end));
    }
}
