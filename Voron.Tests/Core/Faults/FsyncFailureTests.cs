using Voron.Testing.Faults;

namespace Voron.Tests.Core.Faults;

/// <summary>
/// CT9. a failed FlushData (fdatasync) at every flush of every crash scenario — journal records,
/// new journal files, the data file, the header copies — modelled as Linux does it (fsyncgate):
/// the unsynced data of the file may be lost for good, even though reads still show it and a
/// later fsync would succeed. The store must stop (fail-stop: nothing more acknowledged, no
/// retry that continues) and recover every acknowledged commit after a restart and after a
/// power loss. FaultHarness lists what must hold.
/// </summary>
public sealed class FsyncFailureTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scenarios => [.. CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Failed_fsync_at_every_flush_stops_the_store_and_loses_nothing_acknowledged(string name)
    {
        var scenario = CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(FsyncFailureTests)} '{name}'");
        using var dryRun = CrashHarness.RunToCrash(scenario, seed, crashAt: null, out _);
        var points = dryRun.Calls.Where(c => c.Kind == IoCallKind.FlushData).Select(c => c.Index).ToList();
        var (states, failures) = StateRunner.Run(points, (point, found) =>
            FaultHarness.Check(scenario, seed, point, call => call.Kind == IoCallKind.FlushData ? IoFault.FsyncFailure : IoFault.IoError, diskStaysFull: false, found));

        CrashBudget.Report(output, $"'{name}': {points.Count} failed fsyncs", states, failures);
    }
}
