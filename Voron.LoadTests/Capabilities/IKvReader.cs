namespace Voron.LoadTests.Capabilities;

/// <summary>
/// Reads in one read transaction (a snapshot), from one thread. Owned by the thread that opened
/// it; dispose it on that thread.
/// </summary>
internal interface IKvReader : IDisposable
{
    /// <summary>
    /// Looks <paramref name="key"/> up and, when found, copies its value into a buffer the
    /// reader owns (so every engine does the same work: find the key, read the value's bytes)
    /// and returns the value's length.
    /// </summary>
    bool TryGet(byte[] key, out int valueLength);

    /// <summary>
    /// Reads up to <paramref name="count"/> entries in key order from the first key at or after
    /// <paramref name="from"/>, copying each value out; returns how many it read (a YCSB-E scan).
    /// </summary>
    int Scan(byte[] from, int count);

    /// <summary>
    /// Ends the reader's snapshot and starts a new one on the same reader (a new request's read
    /// transaction, seeing every commit so far): Voron and LMDB begin a new read transaction
    /// (LMDB renews its handle), SQLite ends its deferred transaction and begins another on the
    /// same connection, keeping the connection's page cache.
    /// </summary>
    void Refresh();

    /// <summary>
    /// Reads every entry once through this reader, so its caches (SQLite's page cache on this
    /// connection, the OS pages behind a memory map) hold the store before anything is timed:
    /// every engine's reads start from the same, warm state. Returns the entries read.
    /// </summary>
    long WarmUp();
}
