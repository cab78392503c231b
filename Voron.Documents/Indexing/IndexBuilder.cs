using System.Buffers;
using System.Text;
using Voron.Documents.Diagnostics;
using Voron.Documents.Storage;

namespace Voron.Documents.Indexing;

// Index definition and build protocol (each step one merged operation; the builder's lock
// serializes them per store, I2 keeps concurrent sessions consistent with each):
//
//   define:  [drop the old tree when the definition changed] create the index tree; write the
//            definition record in state "building" (resume: none); raise "gen".
//            From here every save maintains the index like any other (entries added and removed).
//   build:   repeat: in one transaction, read the next IndexBuildBatchSize ids of the collection
//            after the record's resume id, put each document's entries (unique checks included),
//            and move the resume id forward. Entries are idempotent puts, so a document a save
//            also touched ends with exactly its current entries.
//   ready:   state "ready", raise "gen": queries may use it.
//
// A failed build (a unique violation among existing documents, a value that cannot be indexed, any
// other error of a build step) drops the index and throws the error, so the catalog never keeps an
// index that is defined but cannot finish; a later EnsureIndexAsync defines and builds it afresh.
// A canceled build leaves it "building" (still maintained, not queryable) and the next
// EnsureIndexAsync with the same definition resumes it. A store reopened mid-build also resumes on
// the next EnsureIndexAsync. (When even the drop fails, the store itself has failed: the index
// stays "building" and resumes like a canceled one.)

/// <summary>
/// Defines, builds and drops a store's indexes (the protocol above), one catalog change at a time.
/// Gets what it needs when the store is built: the environment, the telemetry, and a way to reload
/// the store's catalog after each change (the catalog snapshot sessions read is the store's, Indexing/CatalogCache.cs).
/// </summary>
#pragma warning disable CA1001 // the lock lives as long as the store, which never disposes it: a build still running at dispose releases it
internal sealed class IndexBuilder(StorageEnvironment environment, DocumentsTelemetry telemetry, Func<IndexCatalog> reloadCatalog, int batchSize)
#pragma warning restore CA1001
{
    /// <summary>Serializes catalog changes (define, drop, build done) of one store (I2).</summary>
    private readonly SemaphoreSlim _lock = new(1, 1);

    private string Path => environment.Path;

    /// <summary>Tests only: runs at the start of each build step, inside its transaction (throw to fail the build there).</summary>
    internal Action<IndexDefinition>? BuildChunkTestHook { get; set; }

    /// <summary><see cref="DocumentStore.EnsureIndexAsync"/>: define when new or changed, build, mark ready; a failed build drops the index.</summary>
    public Task<bool> EnsureAsync(IndexDefinition definition, IProgress<IndexBuildProgress>? progress, CancellationToken cancellationToken) =>
        LockedAsync(DocumentsDiagnostics.Operations.EnsureIndex, definition.Collection, async () =>
        {
            var existing = reloadCatalog().Find(definition.Collection, definition.Name);
            if (existing != null && existing.Definition.Equals(definition) && existing.Ready)
            {
                return false;
            }

            if (existing == null || !existing.Definition.Equals(definition))
            {
                await environment.ExecuteAsync(tx => Define(tx, definition, existing != null), cancellationToken).ConfigureAwait(false);
                reloadCatalog();
            }

            try
            {
                await BuildAsync(definition, progress, cancellationToken).ConfigureAwait(false);
                await environment.ExecuteAsync(tx => MarkReady(tx, definition), CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                try
                {
                    await environment.ExecuteAsync(tx => Drop(tx, definition.Collection, definition.Name), CancellationToken.None).ConfigureAwait(false);
                }
                catch (Exception dropFailed)
                {
                    throw new AggregateException($"Building index '{definition.Name}' on '{definition.Collection}' failed, and dropping it failed too (it stays \"building\"; the next EnsureIndexAsync resumes it).", e, dropFailed);
                }

                throw;
            }
            finally
            {
                reloadCatalog();
            }

            return true;
        }, cancellationToken);

    /// <summary><see cref="DocumentStore.DropIndexAsync"/>: the definition and the tree in one transaction; false when there was none.</summary>
    public Task<bool> DropAsync(string collection, string name, CancellationToken cancellationToken) =>
        LockedAsync(DocumentsDiagnostics.Operations.DropIndex, collection, async () =>
        {
            var dropped = await environment.ExecuteAsync(tx => Drop(tx, collection, name), cancellationToken).ConfigureAwait(false);
            reloadCatalog();
            return dropped;
        }, cancellationToken);

    /// <summary>Runs <paramref name="change"/> holding the lock, timed as one operation (begun before the wait for the lock).</summary>
    private async Task<bool> LockedAsync(string operationName, string collection, Func<Task<bool>> change, CancellationToken cancellationToken)
    {
        var operation = telemetry.Start(operationName, collection);
        await _lock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var result = await change().ConfigureAwait(false);
            operation.Complete();
            return result;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
        finally
        {
            _lock.Release();
        }
    }

    private bool Define(WriteTransaction transaction, IndexDefinition definition, bool replacing)
    {
        var tree = DocumentTrees.IndexTree(definition.Collection, definition.Name);
        if (replacing)
        {
            transaction.DeleteTree(tree);
        }

        transaction.CreateTree(tree);
        var meta = transaction.CreateTree(DocumentTrees.Meta);
        meta.Put(DocumentTrees.IndexDefinitionKey(definition.Collection, definition.Name), new IndexDefinitionRecord(definition, false, 0, null).Encode());
        RaiseGeneration(meta);
        return true;
    }

    private bool MarkReady(WriteTransaction transaction, IndexDefinition definition)
    {
        var meta = transaction.CreateTree(DocumentTrees.Meta);
        var record = ReadDefinition(meta, definition);
        meta.Put(DocumentTrees.IndexDefinitionKey(definition.Collection, definition.Name), (record with { Ready = true, ResumeAfter = null }).Encode());
        RaiseGeneration(meta);
        return true;
    }

    private bool Drop(WriteTransaction transaction, string collection, string name)
    {
        var meta = transaction.CreateTree(DocumentTrees.Meta);
        var key = DocumentTrees.IndexDefinitionKey(collection, name);
        if (!meta.TryGet(key, out _))
        {
            return false;
        }

        meta.Delete(key);
        transaction.DeleteTree(DocumentTrees.IndexTree(collection, name));
        RaiseGeneration(meta);
        return true;
    }

    private void RaiseGeneration(Tree meta) =>
        DocumentTrees.WriteInt64(meta, DocumentTrees.GenerationKey, DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, Path) + 1);

    private IndexDefinitionRecord ReadDefinition(Tree meta, IndexDefinition definition)
    {
        if (!meta.TryGet(DocumentTrees.IndexDefinitionKey(definition.Collection, definition.Name), out var bytes))
        {
            throw new InvalidOperationException($"Index '{definition.Name}' on '{definition.Collection}' was dropped during its build.");
        }

        var record = IndexDefinitionRecord.Decode(definition.Collection, definition.Name, bytes, Path);
        if (!record.Definition.Equals(definition))
        {
            throw new InvalidOperationException($"Index '{definition.Name}' on '{definition.Collection}' was redefined during its build.");
        }

        return record;
    }

    private async Task BuildAsync(IndexDefinition definition, IProgress<IndexBuildProgress>? progress, CancellationToken cancellationToken)
    {
        long total;
        long processed;
        using (var read = environment.BeginRead())
        {
            total = read.OpenTree(DocumentTrees.CollectionTree(definition.Collection))?.Count ?? 0;
            var meta = read.OpenTree(DocumentTrees.Meta)!;
            processed = ReadDefinition(meta, definition).Processed;
        }

        progress?.Report(new IndexBuildProgress(definition.Collection, definition.Name, processed, total));
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var (done, count) = await environment.ExecuteAsync(tx => BuildChunk(tx, definition), cancellationToken).ConfigureAwait(false);
            processed = count;
            progress?.Report(new IndexBuildProgress(definition.Collection, definition.Name, processed, Math.Max(total, processed)));
            if (done)
            {
                return;
            }
        }
    }

    /// <summary>One build step (see the protocol above): entries for the next documents after the resume id.</summary>
    private (bool Done, long Processed) BuildChunk(WriteTransaction transaction, IndexDefinition definition)
    {
        BuildChunkTestHook?.Invoke(definition);
        var meta = transaction.CreateTree(DocumentTrees.Meta);
        var record = ReadDefinition(meta, definition);
        var members = transaction.OpenTree(DocumentTrees.CollectionTree(definition.Collection));
        var docs = transaction.OpenTree(DocumentTrees.Documents);
        if (members == null || docs == null)
        {
            return (true, record.Processed);
        }

        var ids = new List<byte[]>(batchSize + 1);
        var iterator = members.Iterate();
        var more = record.ResumeAfter == null ? iterator.SeekFirst() : iterator.Seek(record.ResumeAfter);
        if (more && record.ResumeAfter != null && iterator.Key.SequenceEqual(record.ResumeAfter))
        {
            more = iterator.MoveNext();
        }

        for (; more && ids.Count < batchSize; more = iterator.MoveNext())
        {
            ids.Add(iterator.Key.ToArray());
        }

        var indexes = new CollectionIndexes(definition.Collection, [(definition, false)]);
        var index = indexes.Indexes[0];
        var extractor = indexes.CreateExtractor();
        var tree = transaction.CreateTree(index.TreeName);
        foreach (var id in ids)
        {
            var idText = Encoding.UTF8.GetString(id);
            if (!docs.TryGet(id, out var stored))
            {
                throw new CorruptionException(Path, 0, $"collection '{definition.Collection}' lists document '{idText}', which does not exist (L1 in Storage/DocumentTrees.cs).");
            }

            var header = DocumentRecord.ReadHeader(stored, idText, Path);
            byte[]? rented = null;
            byte[][] keys;
            try
            {
                keys = indexes.ComputeEntries(DocumentRecord.Json(stored, header, ref rented, idText, Path), id, extractor)[0];
            }
            finally
            {
                if (rented != null)
                {
                    ArrayPool<byte>.Shared.Return(rented);
                }
            }

            foreach (var key in keys)
            {
                if (definition.IsUnique)
                {
                    UniqueCheck.Ensure(tree, index, key, id, idText);
                }

                tree.Put(key, []);
            }
        }

        var processed = record.Processed + ids.Count;
        var resume = ids.Count > 0 ? ids[^1] : record.ResumeAfter;
        meta.Put(DocumentTrees.IndexDefinitionKey(definition.Collection, definition.Name), (record with { Processed = processed, ResumeAfter = resume }).Encode());
        return (ids.Count < batchSize, processed);
    }
}
