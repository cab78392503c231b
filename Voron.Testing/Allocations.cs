namespace Voron.Testing;

/// <summary>
/// What a piece of code allocates on the calling thread, measured so that the runtime's own
/// occasional allocations cannot decide the verdict.
/// </summary>
public static class Allocations
{
    /// <summary>
    /// The fewest bytes <paramref name="work"/> allocated on this thread over
    /// <paramref name="tries"/> runs, after one run that warms it up. The runtime allocates on the
    /// calling thread now and then on its own account (a method promoted by the tiered JIT, a
    /// call-counting stub, a lazily built cache), more often on a busy machine, where a run of
    /// the whole suite once failed a zero-allocation test with 3,848 bytes that the test run
    /// alone did not allocate. An allocation of the code under test happens on every run, so the fewest
    /// over several runs is the code's own.
    /// </summary>
    public static long Fewest(Action work, int tries = 5)
    {
        ArgumentNullException.ThrowIfNull(work);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(tries);
        work();
        var fewest = long.MaxValue;
        for (var i = 0; i < tries && fewest > 0; i++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            work();
            fewest = Math.Min(fewest, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        return fewest;
    }
}
