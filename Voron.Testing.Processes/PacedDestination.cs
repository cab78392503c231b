namespace Voron.Testing.Processes;

/// <summary>
/// The follow-child's destination: the real one, except that the download of each journal object
/// of the followed lineage (a whole-object get: the replica's apply step) waits until the child has
/// read the replica's current state. A replica applies every record of one object before it
/// downloads the next, and nothing else writes it, so the child reads the state after each object
/// the replica applies: with a primary that ships one transaction per object, after every
/// transaction. Header reads (ranged gets), listings and everything else pass straight through.
/// </summary>
internal sealed class PacedDestination(IArchiveDestination inner, string lineage) : IArchiveDestination, IDisposable
{
    private readonly string _journalPrefix = lineage + "/journal/";
    private readonly SemaphoreSlim _progress = new(0);
    private StorageEnvironment? _replica;
    private long _read = -1;

    public string Description => inner.Description;

    /// <summary>The replica that downloads through this destination (its downloads wait until it is attached).</summary>
    public void Attach(StorageEnvironment replica)
    {
        Volatile.Write(ref _replica, replica);
        _progress.Release();
    }

    /// <summary>The child has read the replica's state at <paramref name="transactionId"/>.</summary>
    public void Read(long transactionId)
    {
        Interlocked.Exchange(ref _read, transactionId);
        _progress.Release();
    }

    public async Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default)
    {
        if (offset == 0 && length == null && key.StartsWith(_journalPrefix, StringComparison.Ordinal))
        {
            // Each wake re-checks: a release may be stale, and the state only moves while nobody waits here.
            while (Volatile.Read(ref _replica) is not { } replica || Interlocked.Read(ref _read) < replica.LastCommittedTransactionId)
            {
                await _progress.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
        }

        return await inner.GetAsync(key, offset, length, cancellationToken).ConfigureAwait(false);
    }

    public Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default) =>
        inner.PutIfAbsentAsync(key, content, length, cancellationToken);

    public IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null, CancellationToken cancellationToken = default) =>
        inner.ListAsync(prefix, startAfter, cancellationToken);

    public Task DeleteAsync(string key, CancellationToken cancellationToken = default) => inner.DeleteAsync(key, cancellationToken);

    public void Dispose()
    {
        _progress.Dispose();
        (inner as IDisposable)?.Dispose();
    }
}
