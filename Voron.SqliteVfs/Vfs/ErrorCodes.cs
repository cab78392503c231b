using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Databases;

namespace Voron.SqliteVfs.Vfs;

/// <summary>
/// Turns what a store call threw into the SQLite result code a SQLite user understands, and
/// records it (<see cref="VoronSqlite.LastError"/>): nothing may cross into native code.
/// </summary>
internal static class ErrorCodes
{
    [ThreadStatic]
    private static Exception? t_lastError;

    public static Exception? LastError => t_lastError;

    // Set once, before any document can be written (DH1): the attached documents' conflict test.
    private static volatile Func<Exception, bool>? s_isConflict;

    /// <summary>DH1: what counts as a document conflict (V14), from the modules that write documents.</summary>
    public static void RecogniseConflicts(Func<Exception, bool> isConflict) => s_isConflict ??= isConflict;

    /// <summary>Records why the VFS answered a result code that is not an exception (SQLITE_BUSY).</summary>
    public static void Note(Exception reason) => t_lastError = reason;

    /// <param name="error">What went wrong; kept as <see cref="LastError"/> for this thread.</param>
    /// <param name="ioError">The SQLITE_IOERR_* code for the operation that failed (read, write, lock...).</param>
    public static int From(Exception error, int ioError)
    {
        t_lastError = error;
        if (error is CommitFailedWhileReadingException)
        {
            return ioError; // V17: whatever the cause, SQLite must see an I/O error to drop its cache
        }

        var isConflict = s_isConflict;
        for (var e = error; isConflict != null && e != null; e = e.InnerException)
        {
            if (isConflict(e))
            {
                // V14: a document conflict, this commit's own or that of the in-flight commit it
                // was built on (a StaleCommitException wraps it): a conflict to retry, not an I/O error.
                t_lastError = e;
                return SqliteConstants.Constraint;
            }
        }

        for (var e = error; e != null; e = e.InnerException)
        {
            switch (e)
            {
                case CorruptionException:
                    return SqliteConstants.Corrupt; // a store checksum or format rule failed
                case DiskFullException:
                    return SqliteConstants.Full;
                case OutOfMemoryException:
                    return SqliteConstants.NoMem;
                case StaleCommitException:
                    return ioError;
                case ReadReplicaException:
                    return SqliteConstants.ReadOnly; // V18
            }
        }

        return ioError; // a failed (fail-stop) or disposed store, any other I/O error
    }
}
