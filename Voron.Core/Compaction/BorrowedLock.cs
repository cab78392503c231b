namespace Voron.Compaction;

/// <summary>
/// Stands for the store's lock in a <see cref="StorageEnvironment"/> while compaction holds the
/// real one: disposing the environment leaves the lock held, so nobody opens the store between
/// the close that precedes the swap and the swap itself.
/// </summary>
internal sealed class BorrowedLock : IDisposable
{
    public void Dispose()
    {
        // The owner (compaction) releases the real lock.
    }
}
