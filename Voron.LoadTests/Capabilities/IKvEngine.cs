namespace Voron.LoadTests.Capabilities;

/// <summary>
/// A key-value store as the experiments drive it: one store in one directory, ordered
/// byte-string keys (compared as unsigned bytes), byte-string values. Each engine is used the way
/// a careful .NET caller would use it (prepared statements, one transaction per batch), so the
/// figures compare engines, not adapters.
/// </summary>
/// <remarks>
/// Every write is durable: <see cref="WriteBatch"/> returns only after the engine's commit has
/// reached the disk in its durable mode (the mode each engine runs in is a fact of the report).
/// Writes come from one thread at a time (the same one, for LMDB); readers may run on other
/// threads at the same time.
/// </remarks>
internal interface IKvEngine : IDisposable
{
    /// <summary>The short name the report uses for this engine's rows (<c>voron</c>, <c>sqlite</c>, <c>sqlite-mmap</c>, <c>lmdb</c>).</summary>
    string Name { get; }

    /// <summary>The directory the store lives in (for its size on disk).</summary>
    string Directory { get; }

    /// <summary>
    /// Applies the writes in one durable transaction, in order: a put (insert or replace) for a
    /// write with a value, a delete for one without (deleting a missing key is not an error).
    /// </summary>
    void WriteBatch(IReadOnlyList<KvWrite> writes);

    /// <summary>
    /// Finishes the work earlier writes caused that the engine does after acknowledging them, so
    /// that a timed run can include it and the next run does not pay for it: Voron copies the
    /// journal's pages to the data file and syncs it (what its background flush does), SQLite
    /// checkpoints the WAL into the database file and syncs it, LMDB has nothing left (its commit
    /// wrote the pages in place).
    /// </summary>
    void Settle();

    /// <summary>
    /// A reader for one thread: one read transaction (a snapshot) held until it is disposed.
    /// Several readers may run at the same time, each on its own thread.
    /// </summary>
    IKvReader OpenReader();

    /// <summary>
    /// Reads every entry in key order in one read transaction, copying each value out (so every
    /// value is read), and returns how many entries there are.
    /// </summary>
    long ScanAll();

    /// <summary>How full the pages of the engine's tree are, for the report (Voron's, measured as the filesize diagnostic walks a store); null where the engine cannot tell.</summary>
    string? TreeOccupancy() => null;
}

/// <summary>One write of a batch: a put when <paramref name="Value"/> is set, a delete when it is null.</summary>
internal readonly record struct KvWrite(byte[] Key, byte[]? Value)
{
    public static KvWrite Put(byte[] key, byte[] value) => new(key, value);

    public static KvWrite Delete(byte[] key) => new(key, null);

    /// <summary>The bytes of user data this write hands the engine: key and value.</summary>
    public long UserBytes => Key.Length + (Value?.Length ?? 0);
}
