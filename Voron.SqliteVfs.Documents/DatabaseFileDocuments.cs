using Voron.Documents;
using Voron.SqliteVfs.Databases;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Documents;

/// <summary>A database file's document changes and views (SD3, SD7, SD8), over the state the page layer keeps for them (DH1).</summary>
internal static class DatabaseFileDocuments
{
    extension(DatabaseFile file)
    {
        /// <summary>The document changes of the current write transaction (SD7), or null.</summary>
        public PendingDocuments? PendingDocuments => (PendingDocuments?)file.DocumentChanges;

        /// <summary>SD7: the write transaction's changes, whose undo log a savepoint names a point of, made empty if there are none yet; null outside a write transaction.</summary>
        public PendingDocuments? DocumentsForSavepoint() => file.IsWriter ? file.Changes() : file.PendingDocuments;

        /// <summary>V13: where a voron_docs write goes: the write transaction this connection holds on the database.</summary>
        public PendingDocuments DocumentsForWrite()
        {
            if (!file.IsWriter && file.OnReadReplica)
            {
                var refusal = file.ReplicaRefusal(); // V18: SQLite asks for the write lock first, which refuses already
                throw new VirtualTableException(SqliteConstants.ReadOnly, refusal.Message, refusal);
            }

            if (!file.IsWriter)
            {
                throw new VirtualTableException(SqliteConstants.Error,
                    $"Vfs={file.VfsName}: database '{file.Name}' has no write transaction open for this voron_docs write (SQLite takes the database's write lock before it writes a virtual table of it; this should not happen). Run the statement again.");
            }

            return file.Changes();
        }

        private PendingDocuments Changes()
        {
            if (file.PendingDocuments is { } changes)
            {
                return changes;
            }

            var created = new PendingDocuments();
            file.DocumentChanges = created;
            return created;
        }

        /// <summary>
        /// SD3: the documents a statement reads: the snapshot's store transaction, the database's
        /// in-flight commits that changed documents (a writer's snapshot, V4), and this transaction's
        /// own changes. Never waits.
        /// </summary>
        public DocumentView OpenDocumentView(DocumentStore store)
        {
            var snapshot = file.SnapshotForDocumentRead(out var owns);
            var owned = owns ? snapshot : null;
            try
            {
                List<DocumentCommit>? commits = null;
                foreach (var version in snapshot.InFlight)
                {
                    if (version.Documents is DocumentCommit commit)
                    {
                        (commits ??= []).Add(commit); // V15: only a writer's snapshot has versions in flight
                    }
                }

                return new DocumentView(store, snapshot.Store, commits ?? [], file.IsWriter ? file.PendingDocuments : null, owned);
            }
            catch
            {
                owned?.Dispose();
                throw;
            }
        }

        /// <summary>
        /// SD8: at xSync, with the write lock held, every document change's expected version against
        /// the newest committed state, so a document a session changed since this transaction read it
        /// fails the COMMIT before anything is submitted (SQLite ignores xCommit's errors).
        /// </summary>
        public void CheckDocumentsBeforeCommit(DocumentStore store)
        {
            if (file.PendingDocuments is not { IsEmpty: false } documents)
            {
                return;
            }

            using var newest = file.Database.Environment.BeginRead();
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
}
