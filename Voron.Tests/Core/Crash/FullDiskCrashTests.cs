using Voron.Testing.Faults;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// The class "a full disk followed by freed space", on a simulated disk of a given size
/// (CrashFileSystem.Capacity) that also holds a ballast file the user can delete. Every scenario
/// runs on disks from almost nothing to all the space it uses when space is plentiful; when the
/// disk fills up:
/// <list type="number">
/// <item>the failure surfaces as DiskFullException or EnvironmentFailedException, the store stays
///   readable at the last acknowledged commit and refuses writes (FaultHarness);</item>
/// <item>reopened while the disk is still full, the store opens and shows every acknowledged
///   commit: recovery writes only into space the store holds (PG5, J12, the second header copy
///   made at creation). Only a store whose creation the full disk interrupted may refuse, with
///   DiskFullException;</item>
/// <item>once the ballast is deleted, after a restart and after a power loss, the store recovers
///   every acknowledged commit, nothing partial, and accepts writes (the crash oracle).</item>
/// </list>
/// </summary>
public sealed class FullDiskCrashTests(ITestOutputHelper output)
{
    private const string Ballast = "/ballast.bin";
    private const int BallastBytes = 2 << 20;

    public static TheoryData<string> Scenarios => [.. CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Full_disk_then_freed_space_recovers_every_acknowledged_commit(string name)
    {
        var scenario = CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(FullDiskCrashTests)} '{name}'");
        long peak;
        using (var dry = CrashHarness.RunToCrash(scenario, seed, crashAt: null, out _))
        {
            peak = dry.PeakUsedBytes;
        }

        var disks = CrashBudget.Count(24, share: 0.0007); // a soak of n states: 3 states per disk, ~2% of n over the 9 scenarios
        // Squared fractions of the peak (which counts geometric growth the store gives up when
        // space is short, PG4 and J12): most disks fill up, some only just, some never.
        var sizes = Enumerable.Range(1, disks).Select(i => BallastBytes + (long)(peak * Math.Pow(i / (double)disks, 2))).ToList();
        var outcomes = new System.Collections.Concurrent.ConcurrentDictionary<string, int>();
        var (states, failures) = StateRunner.Run(sizes, (capacity, found) =>
        {
            var outcome = Check(scenario, seed, capacity, found);
            outcomes.AddOrUpdate(outcome, 1, (_, n) => n + 1);
            return 3;
        });

        output.WriteLine($"'{name}': peak {peak:N0} bytes; {string.Join(", ", outcomes.OrderBy(o => o.Key).Select(o => $"{o.Value} {o.Key}"))}");
        CrashBudget.Report(output, $"'{name}': {sizes.Count} disk sizes", states, failures);
    }

    private static string Check(CrashScenario scenario, int seed, long capacity, List<string> failures)
    {
        var where = $"{scenario} on a {capacity:N0}-byte disk with a {BallastBytes:N0}-byte ballast, seed {seed}";
        using var machine = CrashHarness.Start(seed, out var model, scenario.Lazy);
        machine.Capacity = capacity;
        using (var ballast = machine.Open(Ballast, FileOpenMode.CreateNew))
        {
            ballast.Write(0, new byte[BallastBytes]);
            ballast.FlushData();
        }

        machine.SyncDirectory("/");
        var run = new CrashRun(machine, model, scenario.Tune);
        Exception? error = null;
        try
        {
            scenario.Run(run);
        }
        catch (Exception e)
        {
            error = e is AggregateException { InnerException: { } inner } ? inner : e;
        }

        if (error != null && error is not (EnvironmentFailedException or IOException))
        {
            failures.Add($"{where}: the full disk surfaced as {error.GetType().Name}, not DiskFullException or EnvironmentFailedException: {error.Message}");
        }

        run.Settle(CrashHarness.SettleTimeout);
        if (run.OpenEnvironment is { } environment)
        {
            FaultHarness.CheckReadableAndStopped(environment, model, error != null, where, failures);
        }

        var created = run.OpenEnvironment != null; // the scenario's first open finished creating the store
        run.Finish(CrashHarness.SettleTimeout);
        var outcome = error == null ? "never full" : created ? "filled up" : "filled up while creating the store";

        // Restarted with the disk still full.
        using (var stillFull = machine.Copy(seed))
        {
            stillFull.Capacity = capacity;
            try
            {
                using var reopened = StorageEnvironment.Open(CrashRun.Options(stillFull, scenario.Tune));
                var recovered = reopened.LastCommittedTransactionId;
                if (model.CheckRecoveredId(recovered) is { } violation)
                {
                    failures.Add($"{where}, reopened with the disk full: {violation}");
                }

                CrashVerifier.CheckContents(reopened, model.StatesAt(recovered), recovered, "reopened with the disk still full");
            }
            catch (DiskFullException e) when (!created)
            {
                _ = e; // the store was never created: creating it needs space
                outcome += ", reopen refused until space is freed";
            }
            catch (Exception e)
            {
                failures.Add($"{where}, reopened with the disk still full: {e.GetType().Name}: {e.Message}");
            }
        }

        // The user deletes the ballast; then a restart, and separately a power loss.
        machine.DeleteFile(Ballast);
        machine.SyncDirectory("/");
        using var powerLost = machine.AfterPowerLoss(PowerLossPolicy.Random(CrashHarness.StateSeed(seed, scenario.Name, (int)(capacity >> 10))));
        powerLost.Capacity = capacity;
        foreach (var (disk, what) in new[] { (machine, "space freed, process restarted"), (powerLost, "space freed, then power loss") })
        {
            disk.Capacity = capacity;
            try
            {
                CrashVerifier.Verify(disk, model, scenario.Tune, reopen: false);
            }
            catch (CrashCheckException e)
            {
                failures.Add($"{where}, {what}: {e.Message}");
            }
        }

        return outcome;
    }
}
