namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT7. The one damage the journal cannot repair: a data-file sector that the power loss left
/// holding bytes that were never written (neither the old nor the new contents). Journal records
/// hold page diffs, so replay rewrites only the bytes a transaction changed; a garbage sector in
/// unchanged bytes stays. The page checksum must catch it: every such crash state either
/// recovers exactly (the garbage landed where replay rewrites, or on an unused page) or reports
/// a <see cref="CorruptionException"/> naming the data file — never a wrong answer. This is the
/// hardware assumption docs/durability.md states; the other damage models keep garbage out of
/// the data file (PowerLossPolicy.GarbageIn).
/// </summary>
public sealed class GarbageSectorTests(ITestOutputHelper output)
{
    [Fact]
    public void Garbage_in_unsynced_data_file_sectors_is_repaired_or_detected_never_read_as_data()
    {
        var seed = TestSeed.Next(output, nameof(GarbageSectorTests));
        var points = new List<(CrashScenario Scenario, int Point)>();
        foreach (var scenario in CrashScenarios.Enumerated)
        {
            var calls = CrashHarness.CountCalls(scenario, seed);
            points.AddRange(Enumerable.Range(0, calls + 1).Select(p => (scenario, p)));
        }

        var rounds = CrashBudget.DamageRounds;
        var recovered = 0;
        var detected = 0;
        var (states, failures) = StateRunner.Run(points, (item, found) =>
        {
            var (scenario, point) = item;
            using var machine = CrashHarness.RunToCrash(scenario, seed, point, out var model);
            for (var round = 0; round < rounds; round++)
            {
                var policy = new PowerLossPolicy(DamageModel.GarbageSectors, CrashHarness.StateSeed(seed, scenario.Name, point, round)) { GarbageIn = _ => true };
                using var crashed = machine.AfterPowerLoss(policy);
                try
                {
                    CrashVerifier.Verify(crashed, model, scenario.Tune, reopen: false);
                    Interlocked.Increment(ref recovered);
                }
                catch (CrashCheckException e) when (IsDataFileCorruption(e))
                {
                    Interlocked.Increment(ref detected);
                }
                catch (CrashCheckException e)
                {
                    found.Add($"{scenario} crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {policy}, seed {seed}: {e.Message}");
                }
            }

            return rounds;
        });

        output.WriteLine($"{recovered} recovered exactly, {detected} reported data-file corruption");
        CrashBudget.Report(output, $"{points.Count} crash points with garbage in every unsynced sector's place", states, failures);
    }

    private static bool IsDataFileCorruption(Exception e)
    {
        for (var inner = e.InnerException; inner != null; inner = inner.InnerException)
        {
            if (inner is CorruptionException corruption)
            {
                return corruption.File.EndsWith("voron.data", StringComparison.Ordinal);
            }
        }

        return false;
    }
}
