using Voron.Documents.Diagnostics;

namespace Voron.Documents.Storage;

// Design notes — document expiration (XE rules: Storage/ExpiryIndex.cs, RecordHeader.cs,
// Sessions/DocumentSession.Save.cs; the public SweepExpiredAsync is DocumentStore.Expiration.cs).
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

/// <summary>
/// A store's expiry sweeps: <see cref="DocumentStore.SweepExpiredAsync"/> once its store is
/// checked, and the background loop that runs it every <see cref="ExpirationOptions.SweepInterval"/>
/// (XE3, XE5). Gets what it needs when the store is built: the environment, the options, the
/// telemetry, the clock, the store's write submission and its disposed checks.
/// </summary>
#pragma warning disable CA1001 // _sweepLock and _stop live as long as the store; Stop ends the loop before the store closes
internal sealed class ExpirySweeper(
    StorageEnvironment environment,
    DocumentStoreOptions options,
    DocumentsTelemetry telemetry,
    Func<long> nowTicks,
    Func<IReadOnlyList<PreparedWrite>, CancellationToken, Task<WriteResult[]>> submit,
    Action throwIfDisposed,
    Func<bool> isDisposed)
#pragma warning restore CA1001
{
    private const string SweepOperation = "sweep_expired";
    private readonly SemaphoreSlim _sweepLock = new(1, 1);
    private CancellationTokenSource? _stop;
    private Task? _loop;
    private long _sweepsCompleted;

    /// <summary>The last failure of the background sweeper, or null (XE5).</summary>
    public Exception? LastFailure { get; private set; }

    /// <summary>Background sweeps completed (tests wait on it).</summary>
    public long SweepsCompleted => Interlocked.Read(ref _sweepsCompleted);

    /// <summary><see cref="DocumentStore.SweepExpiredAsync"/>: one sweep at a time.</summary>
    public async Task<int> SweepAsync(CancellationToken cancellationToken)
    {
        await _sweepLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            return await SweepBatchesAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _sweepLock.Release();
        }
    }

    private async Task<int> SweepBatchesAsync(CancellationToken cancellationToken)
    {
        var operation = telemetry.Start(SweepOperation, null);
        var deleted = 0;
        try
        {
            var cutoff = nowTicks();
            var batchSize = options.Expiration.BatchSize;
            var due = new List<(string Id, byte[] IdBytes)>(batchSize);
            byte[]? after = null;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                throwIfDisposed();
                due.Clear();
                using (var read = environment.BeginRead())
                {
                    after = ExpiryIndex.Due(read, cutoff, after, batchSize, due, environment.Path); // a short snapshot per batch
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

                var results = await submit(writes, cancellationToken).ConfigureAwait(false);
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

    /// <summary>Starts the background loop when <see cref="ExpirationOptions.Enabled"/>.</summary>
    public void Start()
    {
        if (!options.Expiration.Enabled)
        {
            return;
        }

        _stop = new CancellationTokenSource();
        var stop = _stop.Token;
        _loop = Task.Run(() => LoopAsync(stop), CancellationToken.None);
    }

    private async Task LoopAsync(CancellationToken stop)
    {
        var interval = options.Expiration.SweepInterval;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(interval, options.TimeProvider, stop).ConfigureAwait(false);
                throwIfDisposed();
                await SweepAsync(stop).ConfigureAwait(false);
                Interlocked.Increment(ref _sweepsCompleted);
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                return;
            }
            catch (ObjectDisposedException) when (isDisposed())
            {
                return;
            }
            catch (Exception e)
            {
                LastFailure = e; // XE5: recorded (and in the operation's telemetry); tried again next interval
            }
        }
    }

    /// <summary>Stops the background loop and waits for it (XE5).</summary>
    public void Stop()
    {
        if (_stop == null)
        {
            return;
        }

        _stop.Cancel();
        try
        {
            _loop?.Wait();
        }
        catch (AggregateException)
        {
            // the loop catches its own errors; nothing is left to report here
        }

        _stop.Dispose();
    }
}
