namespace Voron.Tests.Core.Crash;

/// <summary>
/// Leaves with holes (B8 in Trees/TreePage.cs) through every crash point: splits at random keys
/// of clean leaves, a long transaction whose full leaves share with their held siblings (BT12),
/// a flush that writes the leaves with holes to the data file, then inserts that fill those holes
/// and deletes, whose diffs recovery replays over the flushed pages. Each crash point is crashed
/// with every damage model and must recover to the model (StoreModel.cs).
/// </summary>
public sealed class SplitShareCrashTests(ITestOutputHelper output)
{
    private static readonly CrashScenario Scenario = new("splits and shares", SplitsAndShares, o => o.JournalFileSize = 64 * 1024);

    [Fact]
    public void Every_crash_point_of_splits_and_shares_recovers_every_acknowledged_commit()
    {
        var seed = TestSeed.Next(output, nameof(SplitShareCrashTests));
        var calls = CrashHarness.CountCalls(Scenario, seed);
        var (states, failures) = CrashHarness.CrashAtEveryPoint(Scenario, seed, Scenario.Name, calls + 1);
        CrashBudget.Report(output, $"'{Scenario.Name}': {calls} calls, {CrashHarness.PowerLossesPerPoint} power losses each", states, failures);
    }

    /// <summary>Keys in a fixed shuffled order (the same calls on every run), 900-byte values: eight fill a leaf.</summary>
    private static void SplitsAndShares(CrashRun run)
    {
        var order = Enumerable.Range(0, 48).OrderBy(i => (i * 37) % 48).ToArray();
        run.Open();
        for (var i = 0; i < 24; i += 3)
        {
            run.Commit(Put(order[i]), Put(order[i + 1]), Put(order[i + 2]));
        }

        run.Commit([.. order[24..44].Select(Put)]); // one transaction: shares between held leaves
        run.Flush();
        run.Commit(Put(order[44]), Change.Delete("t", Key(order[3])), Put(order[45]));
        run.Commit(Put(order[46]), Put(order[47]), Change.Put("t", Key(order[0]), CrashScenarios.Bytes(1_000, 500)));
    }

    private static string Key(int i) => $"key{i * 10:D5}";

    private static Change Put(int i) => Change.Put("t", Key(i), CrashScenarios.Bytes(i, 900));
}
