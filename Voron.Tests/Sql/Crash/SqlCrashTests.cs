namespace Voron.Tests.Sql.Crash;

/// <summary>
/// SQL on Vfs=voron crashed at every I/O call (the crash simulator, damage models as in
/// EnumeratedCrashTests): every acknowledged COMMIT survives, no partial transaction is visible,
/// integrity_check is ok (SqlCrashScenario's oracle). Single and several connections, one and
/// several databases; the concurrent scenario is crashed at sampled calls. VORON_SOAK scales the
/// counts.
/// </summary>
public sealed class SqlCrashTests(ITestOutputHelper output)
{
    public static TheoryData<string> DeterministicScenarios() => ["one connection, one database", "three connections, two databases"];

    private static SqlCrashScenario Scenario(string name) => name switch
    {
        "one connection, one database" => new SqlCrashScenario(name, databases: 1, connections: 1, transactions: 40, concurrent: false),
        "three connections, two databases" => new SqlCrashScenario(name, databases: 2, connections: 3, transactions: 12, concurrent: false),
        _ => new SqlCrashScenario(name, databases: 2, connections: 4, transactions: 10, concurrent: true),
    };

    [Theory]
    [MemberData(nameof(DeterministicScenarios))]
    public void Sql_crashed_at_every_call_keeps_every_acknowledged_commit(string name)
    {
        var seed = TestSeed.Next(output, name);
        var scenario = Scenario(name);
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
        CrashBudget.Report(output, $"SQL '{name}': {calls} crash points x {rounds} power losses", states, failures);
    }

    [Fact]
    public void Concurrent_sql_crashed_at_sampled_calls_keeps_every_acknowledged_commit()
    {
        const string name = "four concurrent connections, two databases";
        var seed = TestSeed.Next(output, name);
        var scenario = Scenario(name);
        var calls = CountCalls(scenario, seed);
        var points = CrashBudget.Count(80, share: 0.05 / 2);
        var random = new Random(seed);
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, points).Select(_ => random.Next(calls + 1)).ToList(), (point, found) =>
        {
            var policies = Enumerable.Range(0, 2).Select(i => PowerLossPolicy.Random(CrashHarness.StateSeed(seed, name, point, i))).ToList();
            found.AddRange(Check(scenario, seed, point, policies));
            return policies.Count;
        });
        CrashBudget.Report(output, $"SQL '{name}': {points} sampled crash points of about {calls} x 2 power losses", states, failures);
    }

    private int CountCalls(SqlCrashScenario scenario, int seed)
    {
        using var machine = new CrashFileSystem(seed, CrashRun.Directory);
        var outcome = scenario.Run(machine, seed);
        Assert.NotEmpty(outcome.Acknowledged);
        Assert.Equal(outcome.Attempted.Count, outcome.Acknowledged.Count);
        using var disk = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
        Assert.Null(scenario.Verify(disk, outcome));
        output.WriteLine($"{scenario}: {machine.CallCount} I/O calls, {outcome.Acknowledged.Count} commits without a crash");
        return machine.CallCount;
    }

    private static List<string> Check(SqlCrashScenario scenario, int seed, int point, List<PowerLossPolicy> policies)
    {
        var failures = new List<string>();
        using var machine = new CrashFileSystem(seed, CrashRun.Directory) { CrashAtCall = point };
        StateRunner.Stage($"running SQL '{scenario}' to crash point {point}");
        var outcome = scenario.Run(machine, seed);
        var call = machine.CrashCall?.ToString() ?? "after the last call";
        foreach (var policy in policies)
        {
            StateRunner.Stage($"verifying SQL '{scenario}' crash point {point} ({call}) after {policy}");
            using var disk = machine.AfterPowerLoss(policy);
            if (scenario.Verify(disk, outcome) is { } failure)
            {
                failures.Add($"SQL '{scenario}' crash point {point} ({call}), {policy}, seed {seed}: {failure}");
            }
        }

        return failures;
    }
}
