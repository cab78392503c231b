using Voron.Documents.Indexing;
using Voron.Documents.Storage;

namespace Voron.Documents;

// Index definition and build protocol (each step one merged operation; _indexLock serializes
// them per store, I2 keeps concurrent sessions consistent with each):
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

public sealed partial class DocumentStore
{
    /// <summary>
    /// Makes sure the index exists as defined and is built: creates it (building it over the
    /// collection's existing documents, <paramref name="progress"/> reporting as it goes), rebuilds
    /// it when its definition changed, finishes a build left unfinished, or does nothing when it is
    /// in place. Saves proceed during a build and keep the index up to date; queries use the index
    /// once this completes. Returns true when it built something. Call it at startup for each index.
    /// </summary>
    /// <exception cref="UniqueConstraintException">A unique index's existing documents share a value (the index is dropped).</exception>
    /// <exception cref="ArgumentException">A document holds a value the index cannot take, such as an object at the path (the index is dropped; the message names the document).</exception>
    /// <remarks>Any failure of the build drops the index before the error is thrown, so <see cref="GetIndexes"/> never lists an index that cannot finish; a canceled build stays defined and resumes on the next call.</remarks>
    public async Task<bool> EnsureIndexAsync(IndexDefinition definition, IProgress<IndexBuildProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(definition);
        ThrowIfDisposed();
        var operation = Telemetry.Start(DocumentsDiagnostics.Operations.EnsureIndex, definition.Collection);
        await _indexLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var existing = ReloadCatalog().Find(definition.Collection, definition.Name);
            if (existing != null && existing.Definition.Equals(definition) && existing.Ready)
            {
                operation.Complete();
                return false;
            }

            if (existing == null || !existing.Definition.Equals(definition))
            {
                await Environment.ExecuteAsync(tx => Define(tx, definition, existing != null), cancellationToken).ConfigureAwait(false);
                ReloadCatalog();
            }

            try
            {
                await BuildAsync(definition, progress, cancellationToken).ConfigureAwait(false);
                await Environment.ExecuteAsync(tx => MarkReady(tx, definition), CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                try
                {
                    await Environment.ExecuteAsync(tx => Drop(tx, definition.Collection, definition.Name), CancellationToken.None).ConfigureAwait(false);
                }
                catch (Exception dropFailed)
                {
                    throw new AggregateException($"Building index '{definition.Name}' on '{definition.Collection}' failed, and dropping it failed too (it stays \"building\"; the next EnsureIndexAsync resumes it).", e, dropFailed);
                }

                throw;
            }
            finally
            {
                ReloadCatalog();
            }

            operation.Complete();
            return true;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
        finally
        {
            _indexLock.Release();
        }
    }

    /// <summary>Tests only: runs at the start of each build step, inside its transaction (throw to fail the build there).</summary>
    internal Action<IndexDefinition>? BuildChunkTestHook { get; set; }

    /// <summary>Drops an index and its entries; false when there was none.</summary>
    public async Task<bool> DropIndexAsync(string collection, string name, CancellationToken cancellationToken = default)
    {
        DocumentNames.CollectionBytes(collection);
        DocumentNames.ValidateIndexName(name);
        ThrowIfDisposed();
        var operation = Telemetry.Start(DocumentsDiagnostics.Operations.DropIndex, collection);
        await _indexLock.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var dropped = await Environment.ExecuteAsync(tx => Drop(tx, collection, name), cancellationToken).ConfigureAwait(false);
            ReloadCatalog();
            operation.Complete();
            return dropped;
        }
        catch (Exception e)
        {
            operation.Fail(e);
            throw;
        }
        finally
        {
            _indexLock.Release();
        }
    }

    /// <summary>The indexes defined in the store (of one collection, or all), with their build state.</summary>
    public IReadOnlyList<IndexStatus> GetIndexes(string? collection = null)
    {
        ThrowIfDisposed();
        return [.. ReloadCatalog().Records
            .Where(r => collection == null || r.Definition.Collection == collection)
            .Select(r => new IndexStatus(r.Definition, r.Ready))];
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
        using (var read = Environment.BeginRead())
        {
            total = read.OpenTree(DocumentTrees.CollectionTree(definition.Collection))?.Count ?? 0;
            var meta = read.OpenTree(DocumentTrees.Meta)!;
            processed = ReadDefinition(meta, definition).Processed;
        }

        progress?.Report(new IndexBuildProgress(definition.Collection, definition.Name, processed, total));
        var batchSize = Options.IndexBuildBatchSize;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var (done, count) = await Environment.ExecuteAsync(tx => BuildChunk(tx, definition, batchSize), cancellationToken).ConfigureAwait(false);
            processed = count;
            progress?.Report(new IndexBuildProgress(definition.Collection, definition.Name, processed, Math.Max(total, processed)));
            if (done)
            {
                return;
            }
        }
    }

    /// <summary>One build step (see the protocol above): entries for the next documents after the resume id.</summary>
    private (bool Done, long Processed) BuildChunk(WriteTransaction transaction, IndexDefinition definition, int batchSize)
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
            var idText = System.Text.Encoding.UTF8.GetString(id);
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
                    System.Buffers.ArrayPool<byte>.Shared.Return(rented);
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
