namespace Voron.Tests.Core.Crash;

/// <summary>
/// The lazy durability mode under the same crash points and damage models: a power loss may
/// take the newest acknowledged commits (those whose journal records were not yet synced) but
/// never an older one alone, never part of a transaction, never the integrity of the store, and
/// never anything flushed to the data file or closed cleanly (StoreModel: O1 weakened, O2..O4
/// unchanged). A process restart without power loss loses nothing (CrashRun.RestartProcess).
/// </summary>
public sealed class LazyModeCrashTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scenarios => [.. LazyScenarios().Select(s => s.Name)];

    private static IEnumerable<CrashScenario> LazyScenarios() =>
        CrashScenarios.Enumerated.Select(s => s.InLazyMode(TimeSpan.FromHours(1)))
            .Concat(CrashScenarios.Merged.Select(s => s.InLazyMode(TimeSpan.FromMilliseconds(1))));

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Crash_in_lazy_mode_loses_at_most_the_newest_commits_whole_and_never_corrupts(string name)
    {
        var scenario = LazyScenarios().Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(LazyModeCrashTests)} '{name}'");
        var calls = CrashHarness.CountCalls(scenario, seed);
        var (states, failures) = CrashHarness.CrashAtEveryPoint(scenario, seed, name, calls + (scenario.Deterministic ? 1 : 5));
        CrashBudget.Report(output, $"'{name}': {calls} calls, {CrashHarness.PowerLossesPerPoint} power losses each", states, failures);
    }
}
