namespace Voron.LoadTests.Engines;

/// <summary>
/// A key-value store as the <c>kv</c> experiment drives it: one store in one directory, ordered
/// byte-string keys (compared as unsigned bytes), byte-string values. Each engine is used the way
/// a careful .NET caller would use it (prepared statements, one transaction per batch), so the
/// figures compare engines, not adapters.
/// </summary>
/// <remarks>
/// Every write is durable: <see cref="InsertBatch"/> returns only after the engine's commit has
/// reached the disk in its durable mode (the mode each engine runs in is a fact of the report).
/// Writes come from one thread; readers may run on other threads at the same time.
/// </remarks>
internal interface IKvEngine : IDisposable
{
    /// <summary>The short name the report uses for this engine's rows (<c>sqlite</c>, <c>lmdb</c>, <c>voron</c>).</summary>
    string Name { get; }

    /// <summary>Inserts new keys in one durable transaction. The keys are not in the store yet.</summary>
    void InsertBatch(IReadOnlyList<(byte[] Key, byte[] Value)> items);

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
}
