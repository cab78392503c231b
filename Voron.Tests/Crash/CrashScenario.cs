namespace Voron.Tests.Crash;

/// <summary>
/// A workload to crash: <see cref="Run"/> opens the store through the <see cref="CrashRun"/> and
/// commits through it. <see cref="Deterministic"/> scenarios make the same calls in the same order
/// on every run (J9, no background flush, one thread), so crash point k is the same call each
/// time; the others (concurrent merged operations) crash somewhere near it.
/// </summary>
internal sealed record CrashScenario(string Name, Action<CrashRun> Run, Action<StorageEnvironmentOptions>? Tune = null, bool Deterministic = true)
{
    public override string ToString() => Name;
}
