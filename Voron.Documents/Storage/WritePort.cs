using Voron.Documents.Indexing;
using Voron.Documents.Serialization;

namespace Voron.Documents.Storage;

/// <summary>
/// The one way a document is written, whichever door it comes through (a session's save, a bulk
/// insert, an import, the expiry sweep, a SQL COMMIT over voron_docs). It is the only place that
/// builds a <see cref="PreparedWrite"/>.
/// </summary>
/// <remarks>
/// WP1. Two halves. Prepare runs on the caller's thread, before any transaction: the size limit
///      (<see cref="DocumentStoreOptions.MaxDocumentBytes"/>), the record built with its expiry
///      (XE4), the id's counter shape (I5), the expected version (I3), and then the index entries
///      with the catalog the caller sees (I2, <see cref="ComputeEntries"/>). Apply runs inside the
///      merged operation and only checks and writes (<see cref="WriteBatch"/>,
///      <see cref="BulkBatch"/>): it computes entries again only when the transaction sees another
///      catalog generation than the one they were prepared with.
/// WP2. A prepared write may be applied more than once (the merged operation may run again, M1):
///      apply stamps its record's version and time in place, and every run stamps them again, so
///      nothing is copied per run.
/// </remarks>
internal sealed class WritePort(DocumentStore store)
{
    /// <summary>Why a document of <paramref name="length"/> bytes of JSON is refused, or null when it fits the limit.</summary>
    public string? SizeProblem(long length, string id) =>
        length > store.Options.MaxDocumentBytes
            ? $"Document '{id}' is {length:N0} bytes of JSON; the store takes at most {store.Options.MaxDocumentBytes:N0} (DocumentStoreOptions.MaxDocumentBytes)."
            : null;

    /// <summary>Throws <see cref="DocumentLimitException"/> for a document over the size limit.</summary>
    public void CheckSize(long length, string id)
    {
        if (SizeProblem(length, id) is { } problem)
        {
            throw new DocumentLimitException("document", length, store.Options.MaxDocumentBytes, problem);
        }
    }

    /// <summary>
    /// A session's store of <paramref name="json"/>: checked for size, its record built with
    /// <paramref name="expiresTicks"/> (XE4, the session decides it). <paramref name="hintJson"/>
    /// is the JSON of version <paramref name="hintVersion"/> the session loaded, whose entries the
    /// apply uses instead of reading the stored JSON again while it is still the stored version.
    /// </summary>
    public PreparedWrite Store(string id, byte[] idBytes, string collection, byte[] collectionBytes, byte[] json, long expiresTicks,
        long? expectedVersion, bool textChecked, byte[]? hintJson, long hintVersion)
    {
        CheckSize(json.Length, id);
        var record = DocumentRecord.Build(collectionBytes, json, store.Options.CompressionThresholdBytes, expiresTicks);
        return Write(id, idBytes, collection, collectionBytes, record, json, expectedVersion, textChecked, hintJson, hintVersion);
    }

    /// <summary>A session's delete of <paramref name="id"/> (its collection null when the session does not know it).</summary>
    public static PreparedWrite Delete(string id, byte[] idBytes, string? collection, byte[]? collectionBytes, long? expectedVersion, byte[]? hintJson, long hintVersion) =>
        new()
        {
            Id = id,
            IdBytes = idBytes,
            Collection = collection,
            CollectionBytes = collectionBytes,
            ExpectedVersion = expectedVersion,
            HintJson = hintJson,
            HintVersion = hintVersion,
        };

    /// <summary>
    /// A bulk insert's or an import's write of <paramref name="json"/>: checked for size, its
    /// expiry read from the configured JSON field (XE4), the id counters raised as an explicit id
    /// raises them (I5) unless the store generated it. An existing document is replaced (no
    /// expected version), except that a generated id expects none.
    /// </summary>
    public PreparedWrite Bulk(string id, byte[] idBytes, string collection, byte[] collectionBytes, byte[] json, bool generated)
    {
        if (!generated)
        {
            store.Ids.ObserveId(id); // I5: whatever the collection
        }

        CheckSize(json.Length, id);

        var record = DocumentRecord.Build(collectionBytes, json, store.Options.CompressionThresholdBytes, store.ExpiryField?.Read(json, id) ?? 0);
        return Write(id, idBytes, collection, collectionBytes, record, JsonBesides(record, json), generated ? 0 : null);
    }

    /// <summary>The expiry sweep's delete of <paramref name="id"/>, applied only if it still expires at or before <paramref name="cutoff"/> (XE3).</summary>
    public static PreparedWrite ExpiredDelete(string id, byte[] idBytes, long cutoff) =>
        new() { Id = id, IdBytes = idBytes, ExpiredOnly = true, ExpiryCutoff = cutoff };

    /// <summary>
    /// A SQL change (voron_docs) prepared at COMMIT: a store of <paramref name="json"/> (its
    /// expiry from the configured JSON field, XE4), or a delete when it is null. Its expected
    /// version is resolved when it applies (<see cref="ApplyPrepared"/>): a change built on an
    /// in-flight commit expects what that commit wrote. The statement that made the change
    /// checked its size already (<see cref="SizeProblem"/>).
    /// </summary>
    public PreparedWrite Sql(string id, byte[] idBytes, string collection, byte[] collectionBytes, byte[]? json)
    {
        var record = json == null ? null : DocumentRecord.Build(collectionBytes, json, store.Options.CompressionThresholdBytes, store.ExpiryField?.Read(json, id) ?? 0);
        return Write(id, idBytes, collection, collectionBytes, record, json, expectedVersion: null);
    }

    /// <summary>A store (or, with no <paramref name="record"/>, a delete) of a known collection, with the counter shape of its id (I5).</summary>
    private static PreparedWrite Write(string id, byte[] idBytes, string collection, byte[] collectionBytes, byte[]? record, byte[]? json, long? expectedVersion,
        bool textChecked = false, byte[]? hintJson = null, long hintVersion = 0)
    {
        var (number, prefix) = PreparedWrite.GeneratedShape(id);
        return new PreparedWrite
        {
            Id = id,
            IdBytes = idBytes,
            Collection = collection,
            CollectionBytes = collectionBytes,
            Record = record,
            Json = json,
            TextChecked = textChecked,
            ExpectedVersion = expectedVersion,
            HintJson = hintJson,
            HintVersion = hintVersion,
            GeneratedNumber = number,
            GeneratedPrefix = prefix,
        };
    }

    /// <summary>
    /// Computes index entries for <paramref name="writes"/> with the current catalog and submits
    /// them as one merged operation (I1), again with a newer catalog when it changed (I2). Returns
    /// each write's result and the id of the transaction that committed them (I10).
    /// </summary>
    public async Task<(WriteResult[] Results, long TransactionId)> SubmitAsync(IReadOnlyList<PreparedWrite> writes, Subscriptions.SubscriptionAck? ack, CancellationToken cancellationToken)
    {
        // The door for serializer output (JV1, JV2 in Serialization/JsonValidation.cs): raw JSON was
        // checked whole by StoreRaw; a custom converter can write anything into a typed document.
        // The first computation of the entries checks that text in the same pass (SV1).
        var checkText = true;
        while (true)
        {
            store.ThrowIfDisposed();
            var catalog = store.Catalog;
            ComputeEntries(catalog, writes, checkText);
            checkText = false;
            var batch = new WriteBatch(catalog, writes, store.Path) { Ack = ack, Clock = store.Options.TimeProvider };
            try
            {
                return await store.Environment.ExecuteAsync(transaction => (batch.Apply(transaction), transaction.Id), cancellationToken).ConfigureAwait(false);
            }
            catch (StaleCatalogException stale)
            {
                await store.Catalogs.RefreshAsync(stale.Actual, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// The prepare half for a caller that runs the merged operation itself (SQL's COMMIT, whose
    /// operation also writes the database's pages): the entries of <paramref name="writes"/> with
    /// the current catalog, which it returns for <see cref="ApplyPrepared"/>; null when computing
    /// them failed (an index key over its limit, a value that cannot be indexed), so that the apply computes them again and
    /// fails there, inside the operation, as the caller's commit must fail.
    /// </summary>
    public IndexCatalog? TryPrepare(IReadOnlyList<PreparedWrite> writes)
    {
        var catalog = store.Catalog;
        try
        {
            ComputeEntries(catalog, writes, checkText: false);
            return catalog;
        }
        catch (Exception)
        {
            return null; // the apply throws it again, inside the operation
        }
    }

    /// <summary>
    /// The apply half inside a merged operation the caller runs (may run more than once, M1):
    /// each write's expected version from <paramref name="expectedVersion"/> (resolved per run:
    /// it may name what another write of the same operation chain gave), the entries computed
    /// again only when the transaction sees another catalog generation than
    /// <paramref name="preparedWith"/> (or when preparing them failed), (I2: the generation this transaction sees, not published,
    /// since the operation may yet fail), then <see cref="WriteBatch"/> as for a session.
    /// </summary>
    public WriteResult[] ApplyPrepared(WriteTransaction transaction, IReadOnlyList<PreparedWrite> writes, IndexCatalog? preparedWith, Func<int, long?> expectedVersion)
    {
        var catalog = preparedWith ?? store.Catalog;
        var meta = transaction.OpenTree(DocumentTrees.Meta);
        if ((meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, store.Path)) != catalog.Generation)
        {
            catalog = IndexCatalog.Load(transaction, store.Path);
            ComputeEntries(catalog, writes, checkText: false);
        }
        else if (preparedWith == null)
        {
            ComputeEntries(catalog, writes, checkText: false);
        }

        for (var i = 0; i < writes.Count; i++)
        {
            writes[i].ExpectedVersion = expectedVersion(i);
        }

        return new WriteBatch(catalog, writes, store.Path) { Clock = store.Options.TimeProvider }.Apply(transaction);
    }

    /// <summary>
    /// Each write's index entries with <paramref name="catalog"/>; with <paramref name="checkText"/>,
    /// also the text rules of the JSON not yet checked, in the same pass (SV1). A failure leaves
    /// the error that checking every text first, then computing the entries, would give: the
    /// texts of the later writes are checked before it is rethrown.
    /// </summary>
    private static void ComputeEntries(IndexCatalog catalog, IReadOnlyList<PreparedWrite> writes, bool checkText)
    {
        for (var i = 0; i < writes.Count; i++)
        {
            var write = writes[i];
            try
            {
                ComputeEntriesOf(catalog, write, checkText && !write.TextChecked);
            }
            catch (Exception e) when (e is not InvalidJsonException)
            {
                // Not a text error: a later write's text error comes first, as if every text had
                // been checked before any entry was computed.
                for (var later = i + 1; checkText && later < writes.Count; later++)
                {
                    if (writes[later] is { Json: { } json, TextChecked: false } pending)
                    {
                        JsonValidation.ValidateText(json, pending.Id);
                    }
                }

                throw;
            }
        }
    }

    private static void ComputeEntriesOf(IndexCatalog catalog, PreparedWrite write, bool checkText)
    {
        write.NewEntries = null;
        write.HintEntries = null;
        if (write.Collection == null || catalog.For(write.Collection) is not { } indexes)
        {
            if (checkText && write.Json != null)
            {
                JsonValidation.ValidateText(write.Json, write.Id);
            }

            return;
        }

        var extractor = indexes.Rent();
        try
        {
            if (write.Json != null)
            {
                write.NewEntries = checkText
                    ? indexes.ComputeEntriesCheckingText(write.Json, write.IdBytes, write.Id, extractor)
                    : indexes.ComputeEntries(write.Json, write.IdBytes, extractor);
            }

            if (write.HintJson != null)
            {
                write.HintEntries = indexes.ComputeEntries(write.HintJson, write.IdBytes, extractor);
            }
        }
        finally
        {
            indexes.Return(extractor); // SV2: its values are copied into the entries; an aborted walk is reset by the next one
        }
    }

    /// <summary>
    /// BI4. A bulk write keeps its JSON beside its record only when the record is compressed: an
    ///      uncompressed record holds the JSON as it is (BulkPreparation reads it there), and a
    ///      batch waiting for the merger then holds each document's bytes once, not twice (what
    ///      survives a collection is what the collector copies).
    /// </summary>
    private static byte[]? JsonBesides(byte[] record, byte[] json) =>
        (record[DocumentRecord.FlagsOffset] & DocumentRecord.Compressed) != 0 ? json : null;
}
