using System.Runtime.CompilerServices;
using Voron.Documents.Indexing;

namespace Voron.Documents.Storage;

/// <summary>
/// Bulk insert and import at run time: prepared writes grouped in batches of
/// <see cref="DocumentStoreOptions.BulkInsertBatchSize"/>, each prepared on the thread pool and
/// applied as one merged operation (BI3). Gets what it needs when the store is built: the
/// environment, the options, the current catalog and its refresh, and the store's disposed check.
/// The public members are <c>DocumentStore.BulkInsert.cs</c>'s and <c>ImportAsync</c>.
/// </summary>
internal sealed class BulkWriter(
    StorageEnvironment environment,
    DocumentStoreOptions options,
    Func<IndexCatalog> currentCatalog,
    Func<long, CancellationToken, Task> refreshCatalog,
    Action throwIfDisposed)
{
    /// <summary>The writes of <paramref name="documents"/>, each prepared by <paramref name="prepare"/> as it is read.</summary>
    public static async IAsyncEnumerable<PreparedWrite> Prepare<T>(IAsyncEnumerable<T> documents, Func<T, PreparedWrite> prepare, [EnumeratorCancellation] CancellationToken cancellationToken)
        where T : class
    {
        await foreach (var entity in documents.WithCancellation(cancellationToken).ConfigureAwait(false))
        {
            ArgumentNullException.ThrowIfNull(entity, nameof(documents));
            yield return prepare(entity);
        }
    }

    /// <summary>
    /// The bulk-insert machinery over prepared writes (typed documents, or raw JSON from
    /// <see cref="DocumentStore.ImportAsync"/>): batches of <see cref="DocumentStoreOptions.BulkInsertBatchSize"/>,
    /// one transaction each; within a batch a repeated id keeps its last write. Returns the number
    /// of documents written.
    /// </summary>
    /// <remarks>
    /// BI3. Batches commit in input order and none after a failure: a batch's checks and index
    ///      entries are computed on the thread pool (in parallel chunks, BulkPreparation) while
    ///      this thread reads the next batch and the merger applies the one before, but a batch
    ///      is handed to the merger only after the batch before it committed (a batch after a
    ///      failed one fails with its failure, unapplied); every full batch read before a
    ///      failure of the input is committed, as when batches went one at a time; the failure
    ///      reported is the earliest in input order; progress follows each committed batch, in order.
    /// </remarks>
    public async Task<long> WriteAsync(IAsyncEnumerable<PreparedWrite> writes, IProgress<long>? progress, CancellationToken cancellationToken)
    {
        long written = 0;
        var pending = new Queue<Task<int>>(); // submitted batches, oldest first
        Task<int>? last = null;
        var batch = new List<PreparedWrite>();
        var positions = new Dictionary<string, int>(StringComparer.Ordinal);
        try
        {
            await foreach (var write in writes.WithCancellation(cancellationToken).ConfigureAwait(false))
            {
                if (positions.TryGetValue(write.Id, out var position))
                {
                    batch[position] = write; // a duplicate id within a batch: the last one wins
                }
                else
                {
                    positions[write.Id] = batch.Count;
                    batch.Add(write);
                }

                if (batch.Count >= options.BulkInsertBatchSize)
                {
                    while (pending.Count >= BatchesInFlight)
                    {
                        written += await CompleteAsync(pending.Peek(), progress, written).ConfigureAwait(false);
                        _ = pending.Dequeue(); // completed above
                    }

                    last = SubmitAsync([.. batch], last, cancellationToken);
                    pending.Enqueue(last);
                    batch.Clear();
                    positions.Clear();
                }
            }

            if (batch.Count > 0)
            {
                last = SubmitAsync([.. batch], last, cancellationToken);
                pending.Enqueue(last);
            }

            while (pending.Count > 0)
            {
                written += await CompleteAsync(pending.Peek(), progress, written).ConfigureAwait(false);
                _ = pending.Dequeue(); // completed above
            }

            return written;
        }
        catch (Exception failure)
        {
            Exception? batchFailure = null;
            while (pending.Count > 0)
            {
                try
                {
                    await pending.Dequeue().ConfigureAwait(false); // let a batch in flight finish before reporting
                }
                catch (Exception e)
                {
                    batchFailure ??= e; // the oldest batch's: later ones fail with it (BI3)
                }
            }

            if (batchFailure != null && !ReferenceEquals(batchFailure, failure))
            {
                // BI3: the input (or the token) failed after a batch read before it had failed:
                // the batch's failure comes first in input order.
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(batchFailure).Throw();
            }

            throw;
        }
    }

    /// <summary>Batches submitted and not yet awaited: one being applied, the next being prepared.</summary>
    private const int BatchesInFlight = 2;

    /// <summary>
    /// One batch's way (BI3): its checks and entries on the thread pool, then, once
    /// <paramref name="previous"/> committed, one merged operation (again with a newer catalog
    /// when it changed, I2). Completes with the number of documents written.
    /// </summary>
    private Task<int> SubmitAsync(PreparedWrite[] batch, Task<int>? previous, CancellationToken cancellationToken) =>
        Task.Run(async () =>
        {
            var catalog = currentCatalog();
            Exception? prepareFailure = null;
            try
            {
                BulkPreparation.Run(catalog, batch);
            }
            catch (Exception e)
            {
                prepareFailure = e;
            }

            if (previous != null)
            {
                await previous.ConfigureAwait(false); // an earlier batch's failure comes first
            }

            if (prepareFailure != null)
            {
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(prepareFailure);
            }

            while (true)
            {
                throwIfDisposed();
                cancellationToken.ThrowIfCancellationRequested();
                try
                {
                    return (await environment.ExecuteAsync(new BulkBatch(catalog, batch, environment.Path).Apply, cancellationToken).ConfigureAwait(false)).Length;
                }
                catch (StaleCatalogException stale)
                {
                    await refreshCatalog(stale.Actual, cancellationToken).ConfigureAwait(false);
                    catalog = currentCatalog();
                    BulkPreparation.Run(catalog, batch);
                }
            }
        }, CancellationToken.None);

    private static async Task<long> CompleteAsync(Task<int> batch, IProgress<long>? progress, long before)
    {
        var count = await batch.ConfigureAwait(false);
        progress?.Report(before + count);
        return count;
    }

    /// <summary>A synchronous sequence read as an asynchronous one (the bulk insert of an <see cref="IEnumerable{T}"/>).</summary>
    public static async IAsyncEnumerable<T> AsAsync<T>(IEnumerable<T> documents, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        await Task.CompletedTask.ConfigureAwait(false);
        foreach (var document in documents)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return document;
        }
    }
}
