namespace Voron.Testing.Crash;

/// <summary>
/// A workload to crash: <see cref="Run"/> opens the store through the <see cref="CrashRun"/> and
/// commits through it. <see cref="Deterministic"/> scenarios make the same calls in the same order
/// on every run (J9, no background flush, one thread), so crash point k is the same call each
/// time; the others (concurrent merged operations) crash somewhere near it.
/// </summary>
internal sealed record CrashScenario(string Name, Action<CrashRun> Run, Action<StorageEnvironmentOptions>? Tune = null, bool Deterministic = true)
{
    /// <summary>Whether the scenario runs in lazy durability mode (the oracle weakens O1: StoreModel).</summary>
    public bool Lazy { get; init; }

    /// <summary>
    /// This scenario in <see cref="DurabilityMode.Lazy"/> mode, the journal synced every
    /// <paramref name="interval"/> (an hour: only where the engine syncs on its own — rotation,
    /// flush, close — so the run stays deterministic).
    /// </summary>
    public CrashScenario InLazyMode(TimeSpan interval) => this with
    {
        Name = $"lazy {Name}",
        Lazy = true,
        Deterministic = Deterministic && interval >= TimeSpan.FromMinutes(1),
        Tune = o =>
        {
            Tune?.Invoke(o);
            o.Durability = DurabilityMode.Lazy;
            o.LazyFlushInterval = interval;
        },
    };

    public override string ToString() => Name;
}
