using Voron.Journal;
using Voron.Transactions;

namespace Voron;

public sealed partial class StorageEnvironment
{
    // Commit pipeline (synchronous in this version; the merger and async commit come later):
    //
    //   holding _writeLock (T1):
    //     1. tx.PrepareCommit: catalog updated, checksums stamped (T5), pages sorted
    //     2. Journal.Append(record) — one positional write + fdatasync (J2)     on failure: Fail (fail-stop)
    //     3. PageTable.Publish(tx pages)          (PT2: only after 2 returned)
    //     4. _committed = new state               (new transactions see it: T4)
    //     5. flusher.Enqueue(tx)                  (it may copy the pages to the data file from now on)
    //   release _writeLock (in WriteTransaction.Dispose)

    internal void Commit(LowLevelTransaction transaction)
    {
        ThrowIfUnusable();
        var (state, pages) = transaction.PrepareCommit();
        if (pages.Count == 0)
        {
            return; // nothing changed: no record, no new transaction id
        }

        var txId = transaction.Id;
        var journalPages = new JournalPage[pages.Count];
        long bytes = 0;
        for (var i = 0; i < pages.Count; i++)
        {
            journalPages[i] = new JournalPage(pages[i].Key, pages[i].Value);
            bytes += pages[i].Value.Length;
        }

        JournalPosition end;
        try
        {
            end = _flusher.AppendToJournal(txId, state.ToArray(), journalPages);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Fail(e);
            throw new EnvironmentFailedException(Path, e);
        }

        PageTable.Publish(txId, pages);
        var freeSpace = transaction.Allocator.ToSummary();
        _committed = new CommittedState(txId, state, freeSpace, end);
        _flusher.Enqueue(new UnflushedTransaction(txId, pages.ConvertAll(p => p.Key).ToArray(), bytes, state, end));
    }
}
