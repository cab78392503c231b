namespace Voron.Tests.Core.Crash;

/// <summary>
/// CT18. CT1 for the transaction merger: concurrent callers submit operations through
/// ExecuteAsync (merged into shared transactions, with and without async commit, one in five
/// failing on purpose) while an explicit transaction and a flush cut in. The calls differ from
/// run to run, so crash point k lands near, not exactly on, the same call; the oracle is the same:
/// every completed operation is durable, a failed operation never shows, a merged transaction
/// is all or nothing, and nothing after the in-flight transaction survives (C1..C4 in
/// Transactions/CommitPipeline.cs).
/// </summary>
public sealed class MergedCommitCrashTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scenarios => [.. CrashScenarios.Merged.Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Crash_during_merged_commits_keeps_every_completed_operation_and_no_partial_batch(string name)
    {
        var scenario = CrashScenarios.Merged.Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(MergedCommitCrashTests)} '{name}'");
        var calls = CrashHarness.CountCalls(scenario, seed);
        var (states, failures) = CrashHarness.CrashAtEveryPoint(scenario, seed, name, calls + 5);
        CrashBudget.Report(output, $"'{name}': about {calls} calls, {CrashHarness.PowerLossesPerPoint} power losses each", states, failures);
    }
}
