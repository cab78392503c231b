namespace Voron.SqliteVfs.Databases;

/// <summary>What SQL over documents keeps on a database file (DH1): opaque to the page layer.</summary>
internal sealed partial class DatabaseFile
{
    private IDocumentChanges? _documents;

    /// <summary>V16: whether this snapshot served a document read before the write lock (a deferred transaction that read first).</summary>
    private bool _readDocuments;

    /// <summary>The document changes of the current write transaction (SD7), or null; dropped at COMMIT, rollback and close.</summary>
    public IDocumentChanges? DocumentChanges
    {
        get => _documents;
        set => _documents = value;
    }

    /// <summary>Whether this connection holds the database's write transaction (V13: where document writes go).</summary>
    public bool IsWriter => _writer;

    /// <summary>The VFS's name, for messages.</summary>
    public string VfsName => _vfsName;

    /// <summary>The database this file is a connection's view of.</summary>
    public DatabaseState Database => _database;

    /// <summary>
    /// SD3, V16: the snapshot a document read uses (the durable state, taken and owned by the
    /// caller, when the file holds none), noting a read before the write lock.
    /// </summary>
    public Snapshot SnapshotForDocumentRead(out bool owned)
    {
        var snapshot = _snapshot;
        if (snapshot != null && !_writer)
        {
            _readDocuments = true;
        }

        owned = snapshot == null;
        return snapshot ?? _database.TakeDurable();
    }
}
