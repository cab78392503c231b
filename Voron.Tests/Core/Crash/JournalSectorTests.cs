namespace Voron.Tests.Core.Crash;

/// <summary>
/// What happens on a disk that breaks the default recovery's hardware assumption — a power loss
/// that leaves a journal sector half new and half old (TornBytes) or holding garbage
/// (GarbageSectors), which the other crash tests keep out of journal files
/// (PowerLossPolicy.SubSectorDamageIn). Every canonical scenario is crashed at every point:
/// <list type="bullet">
/// <item>under <see cref="JournalTailRecovery.DiscardAnyDamage"/>, made for such disks, every
///   crash state recovers to the oracle, exactly as format 1 did;</item>
/// <item>under the default <see cref="JournalTailRecovery.DiscardTornWrite"/>, a crash state
///   either recovers to the oracle or reports CorruptionException naming a journal file (such a
///   sector is indistinguishable from rot) — never a wrong answer, never another exception.</item>
/// </list>
/// </summary>
public sealed class JournalSectorTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(JournalTailRecovery.DiscardAnyDamage)]
    [InlineData(JournalTailRecovery.DiscardTornWrite)]
    public void Journal_sectors_torn_within_or_garbled_recover_or_are_reported_as_the_mode_says(JournalTailRecovery mode)
    {
        var seed = TestSeed.Next(output, $"{nameof(JournalSectorTests)} {mode}");
        var points = new List<(CrashScenario Scenario, int Point)>();
        foreach (var scenario in CrashScenarios.Enumerated)
        {
            var tuned = scenario with
            {
                Tune = o =>
                {
                    scenario.Tune?.Invoke(o);
                    o.JournalTailRecovery = mode;
                },
            };
            var calls = CrashHarness.CountCalls(tuned, seed);
            points.AddRange(Enumerable.Range(0, calls + 1).Select(p => (tuned, p)));
        }

        var rounds = Math.Max(1, CrashBudget.DamageRounds / 8);
        var recovered = 0;
        var reported = 0;
        var (states, failures) = StateRunner.Run(points, (item, found) =>
        {
            var (scenario, point) = item;
            using var machine = CrashHarness.RunToCrash(scenario, seed, point, out var model);
            for (var round = 0; round < rounds; round++)
            {
                foreach (var model2 in new[] { DamageModel.TornBytes, DamageModel.GarbageSectors })
                {
                    var policy = new PowerLossPolicy(model2, CrashHarness.StateSeed(seed, scenario.Name, point, round)) { SubSectorDamageIn = _ => true, GarbageIn = path => !path.EndsWith("/voron.data", StringComparison.Ordinal) };
                    using var crashed = machine.AfterPowerLoss(policy);
                    try
                    {
                        CrashVerifier.Verify(crashed, model, scenario.Tune, reopen: false);
                        Interlocked.Increment(ref recovered);
                    }
                    catch (CrashCheckException e) when (mode == JournalTailRecovery.DiscardTornWrite && IsJournalCorruption(e))
                    {
                        Interlocked.Increment(ref reported);
                    }
                    catch (CrashCheckException e)
                    {
                        found.Add($"{scenario} crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {policy}, {mode}, seed {seed}: {e.Message}");
                    }
                }
            }

            return rounds * 2;
        });

        output.WriteLine($"{mode}: {recovered} recovered exactly, {reported} reported journal corruption");
        CrashBudget.Report(output, $"{points.Count} crash points, journal sectors torn within and garbled", states, failures);
    }

    private static bool IsJournalCorruption(Exception e)
    {
        for (var inner = e.InnerException; inner != null; inner = inner.InnerException)
        {
            if (inner is CorruptionException corruption)
            {
                return PowerLossPolicy.IsJournal(corruption.File);
            }
        }

        return false;
    }
}
