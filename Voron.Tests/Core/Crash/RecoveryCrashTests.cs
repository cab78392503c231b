namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT2. a compound crash — the machine loses power again while the store recovers from the first
/// power loss, at every call recovery makes. Recovering from that must give exactly what an
/// uninterrupted recovery gives (same transaction, same contents): recovery is idempotent.
/// </summary>
public sealed class RecoveryCrashTests(ITestOutputHelper output)
{
    [Fact]
    public void Crash_at_every_call_of_recovery_then_recovery_gives_the_same_state()
    {
        var seed = TestSeed.Next(output, nameof(RecoveryCrashTests));
        var everyNth = CrashBudget.Soak is null ? 2 : 1;
        var secondLosses = CrashBudget.RecoveryRounds;
        var firstCrashes = new List<(CrashScenario Scenario, int Point)>();
        foreach (var scenario in CrashScenarios.Enumerated)
        {
            var calls = CrashHarness.CountCalls(scenario, seed);
            firstCrashes.AddRange(Enumerable.Range(0, calls + 1).Where(p => p % everyNth == 0).Select(p => (scenario, p)));
        }

        var (states, failures) = StateRunner.Run(firstCrashes, (first, found) =>
        {
            var (scenario, point) = first;
            var firstLoss = PowerLossPolicy.Random(CrashHarness.StateSeed(seed, scenario.Name, point));
            using var machine = CrashHarness.RunToCrash(scenario, seed, point, out var model);
            using var crashed = machine.AfterPowerLoss(firstLoss);
            var where = $"{scenario} crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {firstLoss}, seed {seed}";

            // The uninterrupted recovery, on a copy: how many calls it makes and where it ends.
            int recoveryCalls;
            long expected;
            using (var copy = crashed.Copy(0))
            {
                using var environment = StorageEnvironment.Open(CrashRun.Options(copy, scenario.Tune));
                recoveryCalls = copy.CallCount;
                expected = environment.LastCommittedTransactionId;
                environment.CloseWithoutFlush();
            }

            var checkedStates = 0;
            for (var call = 0; call < recoveryCalls; call++)
            {
                using var second = crashed.Copy(call);
                second.CrashAtCall = call;
                try
                {
                    StorageEnvironment.Open(CrashRun.Options(second, scenario.Tune)).CloseWithoutFlush();
                    found.Add($"{where}: recovery made {recoveryCalls} calls the first time but passed call {call} without crashing the second time (not deterministic)");
                    continue;
                }
                catch (Exception) when (second.HasCrashed)
                {
                    // the second power loss, during recovery
                }

                for (var loss = 0; loss < secondLosses; loss++)
                {
                    var secondLoss = PowerLossPolicy.Random(CrashHarness.StateSeed(seed, scenario.Name, point, (call * 64) + loss));
                    using var recovered = second.AfterPowerLoss(secondLoss);
                    checkedStates++;
                    try
                    {
                        var actual = CrashVerifier.Verify(recovered, model, scenario.Tune, reopen: false);
                        if (actual != expected)
                        {
                            found.Add($"{where}, then recovery crash point {call} ({second.CrashCall}), {secondLoss}: recovered to transaction {actual}, the uninterrupted recovery to {expected}");
                        }
                    }
                    catch (CrashCheckException e)
                    {
                        found.Add($"{where}, then recovery crash point {call} ({second.CrashCall}), {secondLoss}: {e.Message}");
                    }
                }
            }

            return checkedStates;
        });

        CrashBudget.Report(output, $"{firstCrashes.Count} first crashes, every recovery call crashed again", states, failures);
    }
}
