namespace Voron.SqliteVfs.Databases;

/// <summary>What V5 decides for a connection asking for RESERVED.</summary>
internal enum Freshness
{
    /// <summary>The snapshot is the newest submitted state.</summary>
    Fresh,

    /// <summary>Newer commits changed nothing SQLite holds: move the snapshot forward.</summary>
    Advance,

    /// <summary>SQLite may hold stale pages: the statement must run again on a fresh snapshot (V6).</summary>
    Conflict,
}
