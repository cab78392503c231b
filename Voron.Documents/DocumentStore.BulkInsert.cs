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
        return BulkInsertAsync(BulkWriter.AsAsync(documents, cancellationToken), typeInfo, progress, cancellationToken);
    }

    /// <summary>As <see cref="BulkInsertAsync{T}(IEnumerable{T}, JsonTypeInfo{T}, IProgress{long}?, CancellationToken)"/>, from an asynchronous stream.</summary>
    public async Task<long> BulkInsertAsync<T>(IAsyncEnumerable<T> documents, JsonTypeInfo<T> typeInfo, IProgress<long>? progress = null, CancellationToken cancellationToken = default)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(documents);
        ArgumentNullException.ThrowIfNull(typeInfo);
        ThrowIfDisposed();
        ThrowIfReplica(nameof(BulkInsertAsync)); // I9
        var type = DocumentType.For(typeInfo);
        var operation = Telemetry.Start(DocumentsDiagnostics.Operations.BulkInsert, type.Collection);
        try
        {
            var written = await Bulk.WriteAsync(BulkWriter.Prepare(documents, entity => Prepare(entity, type), cancellationToken), progress, cancellationToken).ConfigureAwait(false);
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
}
