namespace Voron.Tests.Sql.Crash;

/// <summary>
/// Cross-door transactions (a SQL table and a voron_docs table changed in one SQL transaction)
/// crashed at every I/O call of one connection, and at sampled calls of concurrent connections
/// on two databases, each crash followed by power losses of every damage model: no half
/// transaction, every acknowledged COMMIT present, both integrity checks clean
/// (<see cref="DocsCrashScenario"/>). VORON_SOAK scales the counts, as in SqlCrashTests.
/// </summary>
public sealed class DocsCrashTests(ITestOutputHelper output)
{
    [Fact]
    public void Cross_door_transactions_crashed_at_every_call_keep_every_acknowledged_commit_and_nothing_half()
    {
        const string name = "cross-door, one connection";
        var seed = TestSeed.Next(output, name);
        var scenario = new DocsCrashScenario(name, databases: 1, connections: 1, transactions: 16, concurrent: false);
        var calls = CountCalls(scenario, seed);
        var rounds = CrashBudget.Count(2, share: 0.05 / Math.Max(1, calls));
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, calls + 1).ToList(), (point, found) =>
        {
            var policies = Enumerable.Range(0, rounds)
                .Select(i => new PowerLossPolicy(PowerLossPolicy.AllModels[(point + i) % PowerLossPolicy.AllModels.Count], CrashHarness.StateSeed(seed, name, point, i)))
                .ToList();
            found.AddRange(Check(scenario, seed, point, policies));
            return policies.Count;
        });
        CrashBudget.Report(output, $"'{name}': {calls} crash points x {rounds} power losses", states, failures);
    }

    [Fact]
    public void Concurrent_cross_door_transactions_crashed_at_sampled_calls_keep_every_acknowledged_commit_and_nothing_half()
    {
        const string name = "cross-door, three concurrent connections, two databases";
        var seed = TestSeed.Next(output, name);
        var scenario = new DocsCrashScenario(name, databases: 2, connections: 3, transactions: 8, concurrent: true);
        var calls = CountCalls(scenario, seed);
        var points = CrashBudget.Count(24, share: 0.05 / 2);
        var random = new Random(seed);
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, points).Select(_ => random.Next(calls + 1)).ToList(), (point, found) =>
        {
            var policies = Enumerable.Range(0, 2).Select(i => PowerLossPolicy.Random(CrashHarness.StateSeed(seed, name, point, i))).ToList();
            found.AddRange(Check(scenario, seed, point, policies));
            return policies.Count;
        });
        CrashBudget.Report(output, $"'{name}': {points} sampled crash points of about {calls} x 2 power losses", states, failures);
    }

    /// <summary>Runs the scenario without a crash: every transaction is acknowledged and the oracle passes; returns the I/O calls it made.</summary>
    private int CountCalls(DocsCrashScenario scenario, int seed)
    {
        using var machine = new CrashFileSystem(seed, CrashRun.Directory);
        var outcome = scenario.Run(machine, seed);
        Assert.True(outcome.Errors.IsEmpty, $"seed {seed}: {string.Join("\n", outcome.Errors)}");
        Assert.True(outcome.SetupDone);
        Assert.Equal(outcome.Attempted, outcome.Acknowledged);
        Assert.Equal(outcome.NotesAttempted, outcome.NotesAcknowledged);
        Assert.All(outcome.Acknowledged, n => Assert.True(n > 0));
        using var disk = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
        var failure = scenario.Verify(disk, seed, outcome);
        Assert.True(failure == null, $"seed {seed}, without a crash: {failure}");
        output.WriteLine($"{scenario}: {machine.CallCount} I/O calls, {outcome.Acknowledged.Sum()} commits without a crash");
        return machine.CallCount;
    }

    private static List<string> Check(DocsCrashScenario scenario, int seed, int point, List<PowerLossPolicy> policies)
    {
        var failures = new List<string>();
        using var machine = new CrashFileSystem(seed, CrashRun.Directory) { CrashAtCall = point };
        StateRunner.Stage($"running '{scenario}' to crash point {point}");
        var outcome = scenario.Run(machine, seed);
        var call = machine.CrashCall?.ToString() ?? "after the last call";
        foreach (var policy in policies)
        {
            StateRunner.Stage($"verifying '{scenario}' crash point {point} ({call}) after {policy}");
            using var disk = machine.AfterPowerLoss(policy);
            if (scenario.Verify(disk, seed, outcome) is { } failure)
            {
                failures.Add($"'{scenario}' crash point {point} ({call}), {policy}, seed {seed}: {failure}");
            }
        }

        return failures;
    }
}
