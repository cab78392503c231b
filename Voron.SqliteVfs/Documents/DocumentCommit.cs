using System.Text;
using Voron.Documents;
using Voron.Documents.Indexing;
using Voron.Documents.Storage;

namespace Voron.SqliteVfs.Documents;

/// <summary>
/// V13: the document half of a database version: the transaction's document changes, prepared at
/// COMMIT (records built, index entries computed), applied by <see cref="Apply"/> inside the same
/// merged operation as the version's pages, so both are one store transaction and one journal record.
/// </summary>
internal sealed class DocumentCommit
{
    private readonly DocumentStore _store;
    private readonly Dictionary<string, int> _positions = new(StringComparer.Ordinal);
    private readonly byte[]?[] _records;
    private volatile WriteResult[]? _results;

    public DocumentCommit(DocumentStore store, IReadOnlyList<PendingDocument> changes)
    {
        _store = store;
        Changes = changes;
        _records = new byte[]?[changes.Count];
        for (var i = 0; i < changes.Count; i++)
        {
            _positions[changes[i].Id] = i;
            if (changes[i].Json is { } json)
            {
                _records[i] = DocumentRecord.Build(Encoding.UTF8.GetBytes(changes[i].Collection), json, store.Options.CompressionThresholdBytes, store.ExpiryField?.Read(json, changes[i].Id) ?? 0);
            }
        }
    }

    public IReadOnlyList<PendingDocument> Changes { get; }

    /// <summary>The database version this commit is the document half of (set when it is submitted, V13).</summary>
    public Databases.DatabaseVersion? Version { get; set; }

    /// <summary>The database whose version this is, where <see cref="DurableResult"/> counts its waits (set when it is submitted).</summary>
    public Databases.DatabaseState? Database { get; set; }

    /// <summary>Whether the version is durable: <see cref="Results"/> are final.</summary>
    public bool IsDurable => Version?.IsDurable == true;

    /// <summary>
    /// V15: what the change at <paramref name="position"/> was given, once the version is durable
    /// (the merged operation may run more than once, M1, so only then are the results final).
    /// Waits for it; if it failed, throws why, as the COMMIT of a transaction built on it would fail.
    /// </summary>
    public WriteResult DurableResult(int position, string id)
    {
        var version = Version ?? throw new InvalidOperationException("The commit was read before it was submitted.");
        var waited = version.IsDurable ? 0 : System.Diagnostics.Stopwatch.GetTimestamp();
        try
        {
            version.WaitDurable();
        }
        catch (Exception e)
        {
            throw new Interop.VirtualTables.VirtualTableException(
                Vfs.ErrorCodes.From(e, Interop.SqliteConstants.IoErr),
                $"Document '{id}' was written by another connection's commit that failed ({e.Message}); this transaction read it and cannot commit. Roll back and run it again.", e);
        }
        finally
        {
            if (waited != 0)
            {
                Database?.CountReadWait(System.Diagnostics.Stopwatch.GetTimestamp() - waited);
            }
        }

        return Results![position];
    }

    /// <summary>The versions the last run of <see cref="Apply"/> gave (null before it ran).</summary>
    public WriteResult[]? Results => _results;

    public bool TryFind(string id, out PendingDocument change, out int position)
    {
        if (_positions.TryGetValue(id, out position))
        {
            change = Changes[position];
            return true;
        }

        change = null!;
        return false;
    }

    /// <summary>
    /// Runs in the merged operation (may run more than once, M1): checks every expected version
    /// (I3; a change built on an in-flight commit expects what that commit wrote), computes index
    /// entries with the catalog the transaction sees (I2) and writes through the same
    /// <see cref="WriteBatch"/> as sessions. Throws <see cref="ConcurrencyException"/> or
    /// <see cref="UniqueConstraintException"/>: the version fails, nothing of it is written.
    /// </summary>
    public void Apply(WriteTransaction transaction)
    {
        var catalog = _store.Catalog;
        var meta = transaction.OpenTree(DocumentTrees.Meta);
        if ((meta == null ? 0 : DocumentTrees.ReadInt64(meta, DocumentTrees.GenerationKey, _store.Path)) != catalog.Generation)
        {
            catalog = IndexCatalog.Load(transaction, _store.Path); // I2: the generation this transaction sees, not published (the batch may yet fail)
        }

        var writes = new PreparedWrite[Changes.Count];
        var extractors = new Dictionary<string, JsonPathExtractor>(StringComparer.Ordinal);
        for (var i = 0; i < Changes.Count; i++)
        {
            var change = Changes[i];
            var shape = PreparedWrite.GeneratedShape(change.Id);
            var write = new PreparedWrite
            {
                Id = change.Id,
                IdBytes = change.IdBytes,
                Collection = change.Collection,
                CollectionBytes = Encoding.UTF8.GetBytes(change.Collection),
                Record = _records[i] is { } record ? (byte[])record.Clone() : null,
                Json = change.Json,
                ExpectedVersion = change.Expected.Resolve(),
                GeneratedNumber = shape.Number,
                GeneratedPrefix = shape.Prefix,
            };
            if (change.Json != null && catalog.For(change.Collection) is { } indexes)
            {
                if (!extractors.TryGetValue(change.Collection, out var extractor))
                {
                    extractor = indexes.CreateExtractor();
                    extractors[change.Collection] = extractor;
                }

                write.NewEntries = indexes.ComputeEntries(change.Json, change.IdBytes, extractor);
            }

            writes[i] = write;
        }

        _results = new WriteBatch(catalog, writes, _store.Path) { Clock = _store.Options.TimeProvider }.Apply(transaction);
    }
}
