namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT1. every call of every canonical scenario is a crash point, and each crash point is crashed
/// with every damage model (DamageModel) — torn, dropped, reordered and garbage sectors, lost
/// directory changes. Each resulting disk must recover to the model (O1..O4 in StoreModel.cs).
/// </summary>
public sealed class EnumeratedCrashTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scenarios => [.. CrashScenarios.Enumerated.Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Every_crash_point_recovers_every_acknowledged_commit_and_nothing_partial(string name)
    {
        var scenario = CrashScenarios.Enumerated.Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(EnumeratedCrashTests)} '{name}'");
        var calls = CrashHarness.CountCalls(scenario, seed);
        var (states, failures) = CrashHarness.CrashAtEveryPoint(scenario, seed, name, calls + 1);
        CrashBudget.Report(output, $"'{name}': {calls} calls, {CrashHarness.PowerLossesPerPoint} power losses each", states, failures);
    }
}
