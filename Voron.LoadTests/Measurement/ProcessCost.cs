namespace Voron.LoadTests.Measurement;

/// <summary>
/// What a span of this process cost: CPU time of every thread (<see cref="Environment.CpuUsage"/>:
/// the callers, the engine's merger and flusher, the load model's timers, the garbage collector)
/// and the managed bytes allocated by every thread (<see cref="GC.GetTotalAllocatedBytes"/>, exact).
/// Native allocations (SQLite's mallocs) are not counted. <see cref="Start"/> before the span,
/// <see cref="Stop"/> after it; the per-operation figures divide by the operations.
/// </summary>
internal readonly record struct ProcessCost(TimeSpan Cpu, long AllocatedBytes)
{
    /// <summary>The process's totals so far: the starting point of a span.</summary>
    public static ProcessCost Start() => new(Environment.CpuUsage.TotalTime, GC.GetTotalAllocatedBytes(precise: true));

    /// <summary>The cost since <see cref="Start"/> returned this.</summary>
    public ProcessCost Stop()
    {
        var now = Start();
        return new ProcessCost(now.Cpu - Cpu, now.AllocatedBytes - AllocatedBytes);
    }

    /// <summary>CPU microseconds per operation; null without operations.</summary>
    public double? CpuMicrosecondsPer(long operations) => operations <= 0 ? null : Cpu.TotalMicroseconds / operations;

    /// <summary>Allocated bytes per operation; null without operations.</summary>
    public double? AllocatedBytesPer(long operations) => operations <= 0 ? null : AllocatedBytes / (double)operations;
}
