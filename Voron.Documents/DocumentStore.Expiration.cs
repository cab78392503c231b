using Voron.Documents.Storage;

namespace Voron.Documents;

// Design notes — document expiration (XE rules: Storage/ExpiryIndex.cs, RecordHeader.cs,
// Sessions/DocumentSession.Save.cs).
//
//   A record may carry an expiry (DocumentRecord.cs, flag Expires); @docs.expires lists every
//   such record by expiry time (XE2). Readers compare it with "now" from Options.TimeProvider
//   and treat an expired record as absent (XE1) — loads, queries, the SQL voron_docs view and
//   exports. Writers still see it until it is swept: an expected-version check compares with its
//   version, and its unique index entries still count. The sweeper reads @docs.expires up to now
//   in short read transactions and deletes what it found through WriteBatch, BatchSize documents
//   per merged operation, as ordinary deletes (collection, indexes); each delete is applied only
//   if the stored record is still expired at the sweep's cutoff (XE3). Between batches it yields,
//   so other sessions' saves interleave with a long sweep.
//
//   XE1. A reader treats a record whose expiry is at or before its "now" (Options.TimeProvider,
//        read once per load, query, export or SQL cursor) as absent: loads of one id and many, raw
//        loads, queries (the cursor skips it before Skip and Take count it), the SQL voron_docs
//        view and exports. A store of its id counts it as absent too (XE6); a delete still meets
//        it, and so does a unique check of another document's value, until the sweeper deletes it.
//   XE3. The sweeper's delete of a document (PreparedWrite.ExpiredOnly) is applied only if, in
//        the deleting transaction, the stored record still has an expiry at or before the sweep's
//        cutoff; otherwise it is skipped without error (the document was written again meanwhile).
//   XE5. The background sweeper never throws out of its loop: a failed sweep is recorded (the
//        operation's telemetry, LastSweepFailure) and the next interval tries again; disposing
//        the store stops the loop and waits for it before the environment closes.

public sealed partial class DocumentStore
{
    private const string SweepOperation = "sweep_expired";
    private readonly SemaphoreSlim _sweepLock = new(1, 1);
    private CancellationTokenSource? _sweepStop;
    private Task? _sweeper;

    /// <summary>The last failure of the background sweeper, or null (XE5).</summary>
    internal Exception? LastSweepFailure { get; private set; }

    /// <summary>Background sweeps completed (tests wait on it).</summary>
    internal long SweepsCompleted => Interlocked.Read(ref _sweepsCompleted);

    private long _sweepsCompleted;

    /// <summary>
    /// Deletes every document whose expiry is at or before now (<see cref="DocumentStoreOptions.TimeProvider"/>),
    /// <see cref="ExpirationOptions.BatchSize"/> per transaction, as ordinary deletes (indexes and
    /// collections updated), and returns how many it deleted. A document written again (or given
    /// another expiry) after the sweep read it is left alone. Other sessions' saves proceed between
    /// its transactions. Sweeps do not overlap: a second call waits for the first.
    /// The background sweeper (<see cref="ExpirationOptions.Enabled"/>) calls this every
    /// <see cref="ExpirationOptions.SweepInterval"/>.
    /// </summary>
    public async Task<int> SweepExpiredAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        await _sweepLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            return await SweepAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _sweepLock.Release();
        }
    }

    private async Task<int> SweepAsync(CancellationToken cancellationToken)
    {
        var operation = Telemetry.Start(SweepOperation, null);
        var deleted = 0;
        try
        {
            var cutoff = NowTicks;
            var batchSize = Options.Expiration.BatchSize;
            var due = new List<(string Id, byte[] IdBytes)>(batchSize);
            byte[]? after = null;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                ThrowIfDisposed();
                due.Clear();
                using (var read = Environment.BeginRead())
                {
                    after = ExpiryIndex.Due(read, cutoff, after, batchSize, due, Path); // a short snapshot per batch
                }

                if (due.Count == 0)
                {
                    break;
                }

                var writes = new PreparedWrite[due.Count];
                for (var i = 0; i < due.Count; i++)
                {
                    writes[i] = WritePort.ExpiredDelete(due[i].Id, due[i].IdBytes, cutoff);
                }

                var results = await SubmitAsync(writes, cancellationToken).ConfigureAwait(false);
                foreach (var result in results)
                {
                    deleted += result.Existed ? 1 : 0;
                }

                await Task.Yield(); // let the saves queued meanwhile reach the merger before the next batch
            }

            operation.Complete(deleted);
            return deleted;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    private void StartSweeper()
    {
        if (!Options.Expiration.Enabled)
        {
            return;
        }

        _sweepStop = new CancellationTokenSource();
        var stop = _sweepStop.Token;
        _sweeper = Task.Run(() => SweepLoopAsync(stop), CancellationToken.None);
    }

    private async Task SweepLoopAsync(CancellationToken stop)
    {
        var interval = Options.Expiration.SweepInterval;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(interval, Options.TimeProvider, stop).ConfigureAwait(false);
                await SweepExpiredAsync(stop).ConfigureAwait(false);
                Interlocked.Increment(ref _sweepsCompleted);
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                return;
            }
            catch (ObjectDisposedException) when (IsDisposed)
            {
                return;
            }
            catch (Exception e)
            {
                LastSweepFailure = e; // XE5: recorded (and in the operation's telemetry); tried again next interval
            }
        }
    }

    /// <summary>Stops the background sweeper and waits for it (XE5).</summary>
    private void StopSweeper()
    {
        if (_sweepStop == null)
        {
            return;
        }

        _sweepStop.Cancel();
        try
        {
            _sweeper?.Wait();
        }
        catch (AggregateException)
        {
            // the loop catches its own errors; nothing is left to report here
        }

        _sweepStop.Dispose();
    }
}
