namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT3. random workloads (RandomWorkload) crashed at random calls with random damage models.
/// Each workload's seed derives from the test's seed, so one failure replays with VORON_SEED.
/// </summary>
public sealed class RandomCrashTests(ITestOutputHelper output)
{
    private const int PointsPerWorkload = 4;
    private const int PowerLossesPerPoint = 2;

    [Fact]
    public void Random_workloads_crashed_at_random_calls_recover_every_acknowledged_commit()
    {
        var seed = TestSeed.Next(output, nameof(RandomCrashTests));
        var workloads = CrashBudget.Count(500, share: 0.3 / (PointsPerWorkload * PowerLossesPerPoint));
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, workloads).ToList(), (index, found) =>
        {
            var workloadSeed = CrashHarness.StateSeed(seed, "workload", index);
            var scenario = RandomWorkload.Create(workloadSeed);
            int calls;
            try
            {
                calls = CrashHarness.CountCalls(scenario, workloadSeed);
            }
            catch (CrashCheckException e)
            {
                found.Add($"{scenario} (test seed {seed}, workload {index}) without a crash: {e.Message}");
                return 1;
            }

            var random = new Random(workloadSeed);
            for (var p = 0; p < PointsPerWorkload; p++)
            {
                var point = random.Next(calls + 1);
                var policies = Enumerable.Range(0, PowerLossesPerPoint).Select(_ => PowerLossPolicy.Random(random.Next())).ToList();
                found.AddRange(CrashHarness.CheckCrashPoint(scenario, workloadSeed, point, policies, reopen: p == 0)
                    .Select(f => $"{f} (test seed {seed}, workload {index})"));
            }

            return PointsPerWorkload * PowerLossesPerPoint;
        });

        CrashBudget.Report(output, $"{workloads} random workloads, {PointsPerWorkload} crash points x {PowerLossesPerPoint} power losses each", states, failures);
    }
}
