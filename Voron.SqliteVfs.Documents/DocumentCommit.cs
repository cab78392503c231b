using System.Text;
using Voron.Documents;
using Voron.Documents.Indexing;
using Voron.Documents.Storage;
using Voron.SqliteVfs.Databases;

namespace Voron.SqliteVfs.Documents;

/// <summary>
/// V13: the document half of a database version: the transaction's document changes, prepared at
/// COMMIT on the committing thread through the documents' write port (records built, index
/// entries computed, WP1), applied by <see cref="Apply"/> inside the same merged operation as the
/// version's pages, so both are one store transaction and one journal record.
/// </summary>
internal sealed class DocumentCommit : IDocumentVersion
{
    private readonly WritePort _port;
    private readonly Dictionary<string, int> _positions = new(StringComparer.Ordinal);
    private readonly PreparedWrite[] _writes;
    private readonly IndexCatalog? _preparedWith;
    private volatile WriteResult[]? _results;

    public DocumentCommit(DocumentStore store, IReadOnlyList<PendingDocument> changes)
    {
        _port = store.Writes;
        Changes = changes;
        _writes = new PreparedWrite[changes.Count];
        for (var i = 0; i < changes.Count; i++)
        {
            var change = changes[i];
            _positions[change.Id] = i;
            _writes[i] = _port.Sql(change.Id, change.IdBytes, change.Collection, Encoding.UTF8.GetBytes(change.Collection), change.Json);
        }

        _preparedWith = _port.TryPrepare(_writes);
    }

    public IReadOnlyList<PendingDocument> Changes { get; }

    /// <summary>The database version this commit is the document half of (set when it is submitted, V13).</summary>
    public DatabaseVersion? Version { get; private set; }

    /// <summary>The database whose version this is, where <see cref="DurableResult"/> counts its waits (set when it is submitted).</summary>
    public DatabaseState? Database { get; private set; }

    public void Submitted(DatabaseVersion version, DatabaseState database) => (Version, Database) = (version, database);

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
    /// (I3; a change built on an in-flight commit expects what that commit wrote, resolved on each
    /// run) and writes through the write port's apply (<see cref="WritePort.ApplyPrepared"/>, the
    /// same <see cref="WriteBatch"/> as sessions; the entries computed again only when the catalog
    /// changed since COMMIT, I2). Throws <see cref="ConcurrencyException"/> or
    /// <see cref="UniqueConstraintException"/>: the version fails, nothing of it is written.
    /// </summary>
    public void Apply(WriteTransaction transaction) =>
        _results = _port.ApplyPrepared(transaction, _writes, _preparedWith, i => Changes[i].Expected.Resolve());
}
