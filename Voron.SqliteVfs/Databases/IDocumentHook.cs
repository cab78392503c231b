using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Databases;

// DH1. The page layer never names a document type. SQL over documents (voron_docs,
//      voron_collection) lives in Voron.SqliteVfs.Documents, which attaches one hook per VFS
//      (UseDocuments, NativeVfs.BindDocuments) and registers its modules (VoronSqlite.RegisterModules).
//      A database file keeps a transaction's document changes as an opaque IDocumentChanges; at
//      COMMIT the hook prepares them into an IDocumentVersion, which the version carries and the
//      merged operation applies in the same store transaction as the pages (V13).
// DH2. The hook's prepare runs on the committing thread, inside the commit's try/finally that
//      releases the write lock: when it throws, the lock goes to the next writer at once and
//      the COMMIT fails with why.

/// <summary>DH1: the document half of SQL on one VFS, attached by Voron.SqliteVfs.Documents.</summary>
internal interface IDocumentHook
{
    /// <summary>The document store behind the hook (one per VFS: a second, different one is refused).</summary>
    object Store { get; }

    /// <summary>V13, DH2: the document half of a commit, prepared from the transaction's changes on the committing thread; throws why they cannot commit.</summary>
    IDocumentVersion Prepare(IDocumentChanges changes);

    /// <summary>V16: whether documents changed between two snapshots of a database.</summary>
    bool Changed(Snapshot before, Snapshot after);
}

/// <summary>DH1: a write transaction's document changes on one database (opaque to the page layer).</summary>
internal interface IDocumentChanges
{
    bool IsEmpty { get; }
}

/// <summary>V13: the document half of a <see cref="DatabaseVersion"/>.</summary>
internal interface IDocumentVersion
{
    /// <summary>Called once, when the version carrying it is built (before it can apply).</summary>
    void Submitted(DatabaseVersion version, DatabaseState database);

    /// <summary>V13, V14: runs in the merged operation (may run more than once, M1), in the version's store transaction; throws a conflict to fail the version.</summary>
    void Apply(WriteTransaction transaction);
}

/// <summary>The modules and error classification SQL over documents adds to the process (DH1).</summary>
internal interface IDocumentModules
{
    IReadOnlyList<VirtualTableModule> Modules { get; }

    /// <summary>V14: whether <paramref name="error"/> is a document conflict (SQLITE_CONSTRAINT, to retry) rather than an I/O error.</summary>
    bool IsConflict(Exception error);
}
