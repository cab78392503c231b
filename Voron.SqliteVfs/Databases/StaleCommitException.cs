namespace Voron.SqliteVfs.Databases;

/// <summary>
/// A commit was built on a version that failed or was dropped (V8, V9): it fails too. Surfaces
/// as SQLITE_IOERR from COMMIT, or as SQLITE_CONSTRAINT when the version it built on lost a
/// document conflict (V14; the conflict is its inner exception).
/// </summary>
internal sealed class StaleCommitException : IOException
{
    public StaleCommitException(string database, long expected, long found)
        : base($"SQLite database '{database}': the commit was built on version {expected}, but the store holds version {found}; an earlier commit it depends on failed.")
    {
    }

    public StaleCommitException(string database, long failedVersion, Exception cause)
        : base($"SQLite database '{database}': the commit was built on version {failedVersion}, which failed: {cause.Message}", cause)
    {
    }
}
