using Voron.Testing.Faults;

namespace Voron.Tests.Core.Faults;

/// <summary>
/// CT8. a full disk or an I/O error at every call of every crash scenario — writes (failing
/// whole or after some sectors), preallocations, size changes, file creations, renames,
/// deletions and directory syncs — once, and as a disk that stays full. FaultHarness lists what
/// must hold. (Failed flushes are FsyncFailureTests.)
/// </summary>
public sealed class IoFaultTests(ITestOutputHelper output)
{
    public static TheoryData<string> Scenarios => [.. CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Select(s => s.Name)];

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Full_disk_or_io_error_at_every_call_fails_clearly_and_loses_nothing_acknowledged(string name)
    {
        var scenario = CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Single(s => s.Name == name);
        var seed = TestSeed.Next(output, $"{nameof(IoFaultTests)} '{name}'");
        using var dryRun = CrashHarness.RunToCrash(scenario, seed, crashAt: null, out _);
        var points = dryRun.Calls
            .Where(c => c.Kind != IoCallKind.FlushData)
            .SelectMany(c => new[] { (c.Index, Full: false), (c.Index, Full: true) })
            .Where(p => !p.Full || dryRun.Calls[p.Index].Kind is IoCallKind.Write or IoCallKind.Preallocate or IoCallKind.SetLength or IoCallKind.CreateFile)
            .ToList();
        var (states, failures) = StateRunner.Run(points, (point, found) =>
            FaultHarness.Check(scenario, seed, point.Index, Choose, point.Full, found));

        CrashBudget.Report(output, $"'{name}': {points.Count} injected failures", states, failures);
    }

    /// <summary>The failure a call gets: writes rotate through full disk, a partial write and EIO.</summary>
    private static IoFault Choose(IoCall call) => call.Kind switch
    {
        IoCallKind.Write => (call.Index % 3) switch
        {
            0 => IoFault.DiskFull,
            1 => IoFault.PartialWriteThenDiskFull,
            _ => IoFault.IoError,
        },
        IoCallKind.Preallocate or IoCallKind.SetLength => IoFault.DiskFull,
        IoCallKind.CreateFile => call.Index % 2 == 0 ? IoFault.DiskFull : IoFault.IoError,
        _ => IoFault.IoError,
    };
}
