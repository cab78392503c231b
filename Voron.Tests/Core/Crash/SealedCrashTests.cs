using Voron.Testing.Crash;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT1 on a sealed store: every call of every canonical scenario is a crash point, crashed with
/// every damage model, with the store opened with a key. Sealed pages (PG7), full-image journal
/// entries (T10), sealed in-place pages (IP7) and the sealed scratch file (SC5) must recover every
/// acknowledged commit and nothing partial, exactly as a plaintext store does.
/// </summary>
public sealed class SealedCrashTests(ITestOutputHelper output)
{
    private static readonly byte[] Key = Voron.Tests.Core.Sealing.SealingFixtures.Key(53);

    public static TheoryData<string> Scenarios => [.. CrashScenarios.Enumerated.Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Every_crash_point_of_a_sealed_store_recovers_every_acknowledged_commit_and_nothing_partial(string name)
    {
        var plain = CrashScenarios.Enumerated.Single(s => s.Name == name);
        var scenario = plain with
        {
            Name = plain.Name + " (sealed)",
            Tune = o =>
            {
                plain.Tune?.Invoke(o);
                o.EncryptionKey = Key;
            },
        };
        var seed = TestSeed.Next(output, $"{nameof(SealedCrashTests)} '{name}'");
        var calls = CrashHarness.CountCalls(scenario, seed);
        var (states, failures) = CrashHarness.CrashAtEveryPoint(scenario, seed, scenario.Name, calls + 1);
        CrashBudget.Report(output, $"'{scenario.Name}': {calls} calls, {CrashHarness.PowerLossesPerPoint} power losses each", states, failures);
    }
}
