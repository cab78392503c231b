namespace Voron.SqliteVfs.Databases;

/// <summary>
/// The store failed earlier (fail-stop) and refuses writes until it is reopened: SQLITE_IOERR for
/// every later write, whatever the first failure was (a full disk is SQLITE_FULL only for the
/// commit that hit it). The cause is in the message, not as an inner exception, for that reason.
/// </summary>
internal sealed class StoreFailedException : IOException
{
    public StoreFailedException(string path, Exception cause)
        : base($"The store at '{path}' stopped accepting writes after an earlier failure ({cause.Message}); dispose it and open it again to recover.")
    {
    }
}
