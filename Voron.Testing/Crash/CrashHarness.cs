namespace Voron.Testing.Crash;

/// <summary>Runs a scenario to a crash point and checks the disk a power loss leaves.</summary>
internal static class CrashHarness
{
    /// <summary>How long merged operations may take to settle after a run ends before it counts as a hang.</summary>
    public static readonly TimeSpan SettleTimeout = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Runs <paramref name="scenario"/> to its end without a crash, checks the result against the
    /// model, and returns the number of calls it made (its crash points).
    /// </summary>
    public static int CountCalls(CrashScenario scenario, int seed)
    {
        using var machine = RunToCrash(scenario, seed, crashAt: null, out var model);
        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
        CrashVerifier.Verify(crashed, model, scenario.Tune, reopen: false);
        return machine.CallCount;
    }

    /// <summary>
    /// Runs <paramref name="scenario"/> until call <paramref name="crashAt"/> (null: to its end),
    /// where the machine loses power. Returns the machine as it was at that instant (the caller
    /// crashes it with <see cref="CrashFileSystem.AfterPowerLoss"/> as many ways as it likes and
    /// disposes it) and the model of what was attempted and acknowledged.
    /// </summary>
    public static CrashFileSystem RunToCrash(CrashScenario scenario, int seed, int? crashAt, out StoreModel model)
    {
        var machine = Start(seed, out model, scenario.Lazy);
        machine.CrashAtCall = crashAt;
        var run = new CrashRun(machine, model, scenario.Tune);
        StateRunner.Stage($"running '{scenario}' to crash point {crashAt?.ToString() ?? "none"}");
        try
        {
            scenario.Run(run);
        }
        catch (Exception e) when (machine.HasCrashed && e is not CrashCheckException)
        {
            _ = e; // the power loss interrupted the scenario, as intended
        }
        catch (Exception e)
        {
            run.Finish(SettleTimeout);
            machine.Dispose();
            throw new CrashCheckException($"the scenario failed before any crash (at call {machine.CallCount}): {e.GetType().Name}: {e.Message}", e);
        }

        StateRunner.Stage($"settling and closing '{scenario}' after crash point {crashAt?.ToString() ?? "none"} ({machine.CallCount} calls made)");
        run.Finish(SettleTimeout);
        return machine;
    }

    /// <summary>Power losses checked at each crash point by <see cref="CrashAtEveryPoint"/>: every damage model, DamageRounds times.</summary>
    public static int PowerLossesPerPoint => CrashBudget.DamageRounds * PowerLossPolicy.AllModels.Count;

    /// <summary>
    /// Crashes <paramref name="scenario"/> at each call in [0, <paramref name="pointCount"/>) with
    /// <see cref="PowerLossesPerPoint"/> power losses (every damage model in turn, seeded per
    /// point and round), reopening cleanly first at every fourth point.
    /// </summary>
    public static (long States, List<string> Failures) CrashAtEveryPoint(CrashScenario scenario, int seed, string name, int pointCount) =>
        StateRunner.Run(Enumerable.Range(0, pointCount).ToList(), (point, found) =>
        {
            var policies = Enumerable.Range(0, PowerLossesPerPoint)
                .Select(i => new PowerLossPolicy(PowerLossPolicy.AllModels[i % PowerLossPolicy.AllModels.Count], StateSeed(seed, name, point, i)))
                .ToList();
            found.AddRange(CheckCrashPoint(scenario, seed, point, policies, reopen: point % 4 == 0));
            return policies.Count;
        });

    /// <summary>
    /// Crashes <paramref name="scenario"/> at call <paramref name="crashAt"/> and checks the disk
    /// left by each of <paramref name="policies"/>. Returns one failure message per policy that broke
    /// the oracle (empty when all passed).
    /// </summary>
    public static List<string> CheckCrashPoint(CrashScenario scenario, int seed, int crashAt, IEnumerable<PowerLossPolicy> policies, bool reopen)
    {
        var failures = new List<string>();
        CrashFileSystem machine;
        StoreModel model;
        try
        {
            machine = RunToCrash(scenario, seed, crashAt, out model);
        }
        catch (CrashCheckException e)
        {
            failures.Add($"{scenario} crash point {crashAt} (seed {seed}): {e.Message}");
            return failures;
        }

        using (machine)
        {
            var call = machine.CrashCall?.ToString() ?? "after the last call";
            foreach (var policy in policies)
            {
                StateRunner.Stage($"verifying '{scenario}' crash point {crashAt} ({call}) after {policy}");
                using var crashed = machine.AfterPowerLoss(policy);
                try
                {
                    CrashVerifier.Verify(crashed, model, scenario.Tune, reopen);
                }
                catch (CrashCheckException e)
                {
                    failures.Add($"{scenario} crash point {crashAt} ({call}), {policy}, seed {seed}: {e.Message}");
                }
            }
        }

        return failures;
    }

    /// <summary>The machine a scenario starts on: an empty disk with the store's parent directory (made by the user, durable).</summary>
    public static CrashFileSystem Start(int seed, out StoreModel model, bool lazy = false)
    {
        model = new StoreModel { Lazy = lazy };
        return new CrashFileSystem(seed, CrashRun.Directory);
    }

    /// <summary>A seed for one crash state, derived stably from the test's seed and the state's coordinates.</summary>
    public static int StateSeed(int seed, string name, int a, int b = 0)
    {
        unchecked
        {
            var hash = (uint)seed * 0x9E3779B1u;
            foreach (var c in name)
            {
                hash = (hash ^ c) * 16777619u;
            }

            hash = (hash ^ (uint)a) * 0x85EBCA6Bu;
            hash = (hash ^ (uint)b) * 0xC2B2AE35u;
            return (int)(hash ^ (hash >> 16)) & int.MaxValue;
        }
    }
}
