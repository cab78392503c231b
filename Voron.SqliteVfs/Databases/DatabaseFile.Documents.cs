using Voron.Documents;
using Voron.SqliteVfs.Documents;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Databases;

internal sealed partial class DatabaseFile
{
    private PendingDocuments? _documents;

    /// <summary>V16: whether this snapshot served a document read before the write lock (a deferred transaction that read first).</summary>
    private bool _readDocuments;

    /// <summary>The document changes of the current write transaction (SD7), or null.</summary>
    public PendingDocuments? PendingDocuments => _documents;

    /// <summary>SD7: the write transaction's changes, whose undo log a savepoint names a point of, made empty if there are none yet; null outside a write transaction.</summary>
    public PendingDocuments? DocumentsForSavepoint() => _writer ? _documents ??= new PendingDocuments() : _documents;

    /// <summary>V13: where a voron_docs write goes: the write transaction this connection holds on the database.</summary>
    public PendingDocuments DocumentsForWrite()
    {
        if (!_writer)
        {
            throw new VirtualTableException(SqliteConstants.Error,
                $"Vfs={_vfsName}: database '{Name}' has no write transaction open for this voron_docs write (SQLite takes the database's write lock before it writes a virtual table of it; this should not happen). Run the statement again.");
        }

        return _documents ??= new PendingDocuments();
    }

    /// <summary>
    /// SD3: the documents a statement reads: the snapshot's store transaction, the database's
    /// in-flight commits that changed documents (a writer's snapshot, V4), and this transaction's
    /// own changes. Never waits.
    /// </summary>
    public DocumentView OpenDocumentView(DocumentStore store)
    {
        var snapshot = _snapshot;
        if (snapshot != null && !_writer)
        {
            _readDocuments = true;
        }

        Snapshot? owned = null;
        if (snapshot == null)
        {
            snapshot = owned = _database.TakeDurable();
        }

        try
        {
            List<DocumentCommit>? commits = null;
            foreach (var version in snapshot.InFlight)
            {
                if (version.Documents != null)
                {
                    (commits ??= []).Add(version.Documents); // V15: only a writer's snapshot has versions in flight
                }
            }

            return new DocumentView(store, snapshot.Store, commits ?? [], _writer ? _documents : null, owned);
        }
        catch
        {
            owned?.Dispose();
            throw;
        }
    }

    /// <summary>V16: whether documents changed between two snapshots of the database: the store's document version counter (I4), or an in-flight commit with documents.</summary>
    private static bool DocumentsChanged(Snapshot before, Snapshot after)
    {
        if (after.InFlight.Any(v => v.Documents != null && v.Sequence > before.HeadSequence))
        {
            return true;
        }

        return Voron.Documents.Storage.ReadPort.VersionCounter(before.Store, before.Store.Environment.Path) !=
               Voron.Documents.Storage.ReadPort.VersionCounter(after.Store, after.Store.Environment.Path);
    }

    /// <summary>
    /// SD8: at xSync, with the write lock held, every document change's expected version against
    /// the newest committed state, so a document a session changed since this transaction read it
    /// fails the COMMIT before anything is submitted (SQLite ignores xCommit's errors).
    /// </summary>
    public void CheckDocumentsBeforeCommit(DocumentStore store)
    {
        if (_documents is not { IsEmpty: false } documents)
        {
            return;
        }

        using var newest = _database.Environment.BeginRead();
        var view = new DocumentView(store, newest, [], null);
        foreach (var change in documents.All)
        {
            if (change.Expected.Parent != null)
            {
                continue; // built on this database's own in-flight commit: V8 and the merged operation decide
            }

            var stored = view.FindStored(change.Id, change.IdBytes, readJson: false);
            var actual = stored?.Version ?? 0;
            if (actual != change.Expected.Version)
            {
                var conflict = new ConcurrencyException(change.Id, change.Expected.Version, actual);
                throw new VirtualTableException(SqliteConstants.Constraint,
                    $"COMMIT failed: document '{change.Id}' changed since this transaction read it (version {change.Expected.Version}, now {actual}); nothing was committed. Read it again and retry.", conflict);
            }
        }
    }
}
