using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;

namespace Voron.Documents;

public sealed partial class DocumentStore
{
    /// <summary>
    /// Loads many documents (an import): each batch of <see cref="DocumentStoreOptions.BulkInsertBatchSize"/>
    /// documents is one transaction through the merger, with its indexes kept, while the next batch
    /// is serialized. Ids come from each entity's <c>Id</c> member or are generated (never an id a
    /// stored document has or had, in any collection, as in a session); an existing
    /// document with the same id is replaced (no expected version). Not atomic as a whole: when a
    /// batch fails (a unique violation, a limit) the batches before it stay saved and the exception
    /// says which document broke the rule. Returns the number of documents written;
    /// <paramref name="progress"/> receives the running count after each batch.
    /// </summary>
    public Task<long> BulkInsertAsync<T>(IEnumerable<T> documents, JsonTypeInfo<T> typeInfo, IProgress<long>? progress = null, CancellationToken cancellationToken = default)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(documents);
        return BulkInsertAsync(AsAsync(documents, cancellationToken), typeInfo, progress, cancellationToken);
    }

    /// <summary>As <see cref="BulkInsertAsync{T}(IEnumerable{T}, JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>, from an asynchronous stream.</summary>
    public async Task<long> BulkInsertAsync<T>(IAsyncEnumerable<T> documents, JsonTypeInfo<T> typeInfo, IProgress<long>? progress = null, CancellationToken cancellationToken = default)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(documents);
        ArgumentNullException.ThrowIfNull(typeInfo);
        ThrowIfDisposed();
        var type = DocumentType.For(typeInfo);
        var operation = Telemetry.Start(DocumentsDiagnostics.Operations.BulkInsert, type.Collection);
        try
        {
            var written = await BulkWriteAsync(PrepareAll(documents, type, cancellationToken), progress, cancellationToken).ConfigureAwait(false);
            Telemetry.RecordWritten(type.Collection, written);
            operation.Complete((int)Math.Min(written, int.MaxValue));
            return written;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
    }

    private async IAsyncEnumerable<PreparedWrite> PrepareAll<T>(IAsyncEnumerable<T> documents, DocumentType type, [EnumeratorCancellation] CancellationToken cancellationToken)
        where T : class
    {
        await foreach (var entity in documents.WithCancellation(cancellationToken).ConfigureAwait(false))
        {
            ArgumentNullException.ThrowIfNull(entity, nameof(documents));
            yield return Prepare(entity, type);
        }
    }

    /// <summary>
    /// The bulk-insert machinery over prepared writes (typed documents, or raw JSON from
    /// <see cref="ImportAsync"/>): batches of <see cref="DocumentStoreOptions.BulkInsertBatchSize"/>,
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
    internal async Task<long> BulkWriteAsync(IAsyncEnumerable<PreparedWrite> writes, IProgress<long>? progress, CancellationToken cancellationToken)
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

                if (batch.Count >= Options.BulkInsertBatchSize)
                {
                    while (pending.Count >= BulkBatchesInFlight)
                    {
                        written += await CompleteAsync(pending.Peek(), progress, written).ConfigureAwait(false);
                        _ = pending.Dequeue(); // completed above
                    }

                    last = SubmitBulkAsync([.. batch], last, cancellationToken);
                    pending.Enqueue(last);
                    batch.Clear();
                    positions.Clear();
                }
            }

            if (batch.Count > 0)
            {
                last = SubmitBulkAsync([.. batch], last, cancellationToken);
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
    private const int BulkBatchesInFlight = 2;

    /// <summary>
    /// One batch's way (BI3): its checks and entries on the thread pool, then, once
    /// <paramref name="previous"/> committed, one merged operation (again with a newer catalog
    /// when it changed, I2). Completes with the number of documents written.
    /// </summary>
    private Task<int> SubmitBulkAsync(PreparedWrite[] batch, Task<int>? previous, CancellationToken cancellationToken) =>
        Task.Run(async () =>
        {
            var catalog = _catalog;
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
                ThrowIfDisposed();
                cancellationToken.ThrowIfCancellationRequested();
                try
                {
                    return (await Environment.ExecuteAsync(new BulkBatch(catalog, batch, Path).Apply, cancellationToken).ConfigureAwait(false)).Length;
                }
                catch (StaleCatalogException stale)
                {
                    await RefreshCatalogAsync(stale.Actual, cancellationToken).ConfigureAwait(false);
                    catalog = _catalog;
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

    private PreparedWrite Prepare<T>(T entity, DocumentType type) where T : class
    {
        var id = type.GetId(entity);
        var generated = id == null;
        if (generated)
        {
            id = Ids.Next(type.Collection);
            type.SetId(entity, id!);
        }

        var idBytes = DocumentNames.IdBytes(id!);
        var json = JsonSerializer.SerializeToUtf8Bytes(entity, type.TypeInfo);
        return Writes.Bulk(id!, idBytes, type.Collection, type.CollectionBytes, json, generated);
    }

    /// <summary>
    /// A prepared write of raw JSON (an import line without its <c>@metadata</c>): the id and
    /// collection already validated, the JSON one object within the size limit. Raises the id
    /// counters as an explicit id does (I5); no expected version (an existing document is replaced).
    /// </summary>
    internal PreparedWrite PrepareRaw(string id, byte[] idBytes, string collection, byte[] collectionBytes, byte[] json) =>
        Writes.Bulk(id, idBytes, collection, collectionBytes, json, generated: false);

    private static async IAsyncEnumerable<T> AsAsync<T>(IEnumerable<T> documents, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        await Task.CompletedTask.ConfigureAwait(false);
        foreach (var document in documents)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return document;
        }
    }
}
