namespace Voron.SqliteVfs;

/// <summary>How a <see cref="VoronSqliteRegistration"/> behaves.</summary>
public sealed class VoronSqliteOptions
{
    /// <summary>
    /// How long one attempt at a database's write lock waits in line inside the VFS, when the
    /// connection has no <c>PRAGMA busy_timeout</c>, before SQLite reports SQLITE_BUSY
    /// ("database is locked") to Microsoft.Data.Sqlite. Microsoft.Data.Sqlite then retries the
    /// statement every 150 ms until its command timeout (<c>CommandTimeout</c>, or
    /// <c>Default Timeout</c> in the connection string) has passed, so a blocked writer gives up
    /// after at most that timeout plus this slice plus 150 ms. With <c>PRAGMA busy_timeout</c>
    /// set, an attempt does not wait here: SQLite's busy handler sleeps between attempts and the
    /// VFS spends those sleeps in line for the lock, so the busy timeout bounds each statement's
    /// wait as it does on a stock database. Default 100 ms; zero answers at once, as stock SQLite.
    /// </summary>
    public TimeSpan LockTimeout { get; set; } = TimeSpan.FromMilliseconds(100);
}
