namespace Voron.SqliteVfs;

/// <summary>How a <see cref="VoronSqliteRegistration"/> behaves.</summary>
public sealed class VoronSqliteOptions
{
    /// <summary>
    /// How long a connection that wants to write waits for the database's write lock, in line
    /// behind the connections before it, before SQLite reports SQLITE_BUSY ("database is
    /// locked"). <c>PRAGMA busy_timeout</c> on a connection overrides it for that connection.
    /// Default 30 s, Microsoft.Data.Sqlite's default command timeout.
    /// </summary>
    public TimeSpan LockTimeout { get; set; } = TimeSpan.FromSeconds(30);
}
