namespace Voron.Tests.Core.Crash;

/// <summary>
/// The crash tests can fail: a disk that breaks the contract the engine relies on, or a model
/// that claims more than the store holds, is caught by the oracle (O1..O4 in StoreModel.cs).
/// </summary>
public sealed class OracleTests
{
    private static readonly CrashScenario Commits = new("commits", run =>
    {
        run.Open();
        for (var i = 0; i < 5; i++)
        {
            run.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 100)));
        }
    });

    [Fact]
    public void A_disk_that_ignores_fsync_loses_acknowledged_commits_and_the_oracle_says_so()
    {
        using var machine = CrashHarness.Start(1, out var model);
        var run = new CrashRun(machine, model);
        run.Open();
        machine.Faults = call => call.Kind == IoCallKind.FlushData ? IoFault.LyingFsync : IoFault.None;
        for (var i = 0; i < 5; i++)
        {
            run.Commit(Change.Put("t", $"k{i}", CrashScenarios.Bytes(i, 100)));
        }

        run.Finish(CrashHarness.SettleTimeout);

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, 1));
        var error = Assert.Throws<CrashCheckException>(() => CrashVerifier.Verify(crashed, model, null, reopen: false));
        Assert.StartsWith("O1:", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_store_missing_an_acknowledged_value_fails_the_contents_check()
    {
        using var machine = CrashHarness.Start(2, out var model);
        var run = new CrashRun(machine, model);
        Commits.Run(run);
        run.Finish(CrashHarness.SettleTimeout);
        var invented = new object();
        model.Attempt(model.LastAcknowledged + 1, invented, [Change.Put("t", "never-written", [1])]);
        model.Acknowledge(model.LastAcknowledged + 1, invented);

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, 2));
        var error = Assert.Throws<CrashCheckException>(() => CrashVerifier.Verify(crashed, model, null, reopen: false));
        Assert.StartsWith("O1:", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_recovered_transaction_that_differs_from_the_model_fails_the_contents_check()
    {
        using var machine = CrashHarness.Start(3, out var model);
        var run = new CrashRun(machine, model);
        Commits.Run(run);
        run.Finish(CrashHarness.SettleTimeout);
        var altered = StoreModel.StartingAt(model.AcknowledgedState(), model.LastAcknowledged - 1);
        var different = new object();
        altered.Attempt(model.LastAcknowledged, different, [Change.Put("t", "k4", [0])]);
        altered.Acknowledge(model.LastAcknowledged, different);

        using var crashed = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, 3));
        var error = Assert.Throws<CrashCheckException>(() => CrashVerifier.Verify(crashed, altered, null, reopen: false));
        Assert.StartsWith("O3:", error.Message, StringComparison.Ordinal);
    }
}
