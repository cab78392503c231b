namespace Voron.LoadTests.Engines;

/// <summary>
/// Point reads in one read transaction, from one thread. Owned by the thread that opened it;
/// dispose it on that thread.
/// </summary>
internal interface IKvReader : IDisposable
{
    /// <summary>
    /// Looks <paramref name="key"/> up and, when found, copies its value into a buffer the
    /// reader owns (so every engine does the same work: find the key, read the value's bytes)
    /// and returns the value's length.
    /// </summary>
    bool TryGet(byte[] key, out int valueLength);
}
