namespace Voron.SqliteVfs.Databases;

/// <summary>
/// V18: SQL tried to write to a database of a read replica (StorageEnvironment.OpenReplica), or to
/// open one the replica does not hold. The VFS answers SQLITE_READONLY (SQLITE_CANTOPEN for a
/// missing database) and keeps this as <see cref="VoronSqlite.LastError"/>: SQLite's own message
/// ("attempt to write a readonly database") cannot say why.
/// </summary>
internal sealed class ReadReplicaException(string message) : InvalidOperationException(message)
{
    /// <summary>A write (a write transaction, a journal, a voron_docs change) refused before anything was written.</summary>
    public static ReadReplicaException Write(StorageEnvironment store, string vfsName, string database) =>
        new($"Vfs={vfsName}: database '{database}' is on a read replica ({Describe(store)}), which accepts no writes (V18): " +
            "write to the primary. To read your own writes here, wait for the primary's transaction id " +
            "(its LastCommittedTransactionId after the commit) with WaitForTransactionAsync on the replica. " +
            "Begin read transactions with BeginTransaction(deferred: true): BEGIN IMMEDIATE asks for the write lock.");

    /// <summary>A database the replica does not hold: it is never created here.</summary>
    public static ReadReplicaException Missing(StorageEnvironment store, string vfsName, string database) =>
        new($"Vfs={vfsName}: database '{database}' does not exist on this read replica ({Describe(store)}), and a replica creates none (V18). " +
            "Check the name, or create the database on the primary: it appears here once the replica has applied that transaction " +
            "(WaitForTransactionAsync with the primary's LastCommittedTransactionId).");

    private static string Describe(StorageEnvironment store) =>
        store.Replica is { } status
            ? $"the store at '{store.Path}' follows lineage {status.Lineage} of {status.Destination}"
            : $"the store at '{store.Path}'";
}
