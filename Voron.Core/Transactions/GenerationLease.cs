namespace Voron.Transactions;

/// <summary>
/// A merged batch's generation (TransactionRegistry.Generations.cs), counted while anyone may read
/// the batch's page buffers outside the page table: the batch itself, its commit until
/// WriteAndPublish returns, and the batch built on it while it is in flight (TransactionMerger
/// M9). The last holder to let go exits the generation, once.
/// </summary>
internal sealed class GenerationLease
{
    private readonly Action<long> _exit;
    private int _holders = 1; // the batch that entered it

    public GenerationLease(long generation, Action<long> exit)
    {
        Generation = generation;
        _exit = exit;
    }

    public long Generation { get; }

    /// <summary>
    /// Holds the generation once more, unless it was exited already: then the batch's buffers may
    /// have left the page table and been handed out again, and must not be read (M9).
    /// </summary>
    public bool TryAcquire()
    {
        var holders = Volatile.Read(ref _holders);
        while (holders > 0)
        {
            var seen = Interlocked.CompareExchange(ref _holders, holders + 1, holders);
            if (seen == holders)
            {
                return true;
            }

            holders = seen;
        }

        return false;
    }

    /// <summary>Lets go of the generation; the last holder exits it.</summary>
    public void Release()
    {
        var left = Interlocked.Decrement(ref _holders);
        System.Diagnostics.Debug.Assert(left >= 0, "M9: a lease is released once per holder");
        if (left == 0)
        {
            _exit(Generation);
        }
    }
}
