namespace Voron.SqliteVfs.Databases;

/// <summary>
/// V17: a COMMIT failed at SQLITE_FCNTL_COMMIT_PHASETWO while another statement of the same
/// connection was still reading. SQLite keeps its lock and its page cache (with the failed
/// commit's pages) for as long as that statement runs, so the VFS answers an I/O error, the one
/// answer that makes SQLite distrust its cache: the connection's statements fail until the open
/// one ends, then read only what is committed. The cause is the inner exception.
/// </summary>
internal sealed class CommitFailedWhileReadingException(string database, Exception cause)
    : IOException(
        $"SQLite database '{database}': COMMIT failed ({cause.Message}) while another statement of this connection was still reading, so SQLite answers " +
        "SQLITE_IOERR: its cache held the failed commit's pages. Finish or dispose the open reader, then run the transaction again (nothing of it was kept). " +
        "Reading to the end (or disposing readers) before COMMIT avoids this.", cause);
