namespace Voron.LoadTests.Load;

/// <summary>
/// What one copy of a scenario sees while it runs (NBomber's IScenarioContext). A copy is one
/// closed-loop caller, or one slot an open phase runs an invocation in: a copy runs one invocation
/// at a time, so what it keeps in <see cref="State"/> (a connection, a caller handle) is never
/// shared between concurrent invocations.
/// </summary>
internal sealed class ScenarioContext
{
    private readonly LoadRun _run;

    internal ScenarioContext(LoadRun run, int copyNumber, CancellationToken cancellationToken)
    {
        _run = run;
        CopyNumber = copyNumber;
        CancellationToken = cancellationToken;
        Random = new Random(unchecked((copyNumber * 40_503) + 0x5eed)); // by copy number only: every engine's copy n draws the same sequence
    }

    public string ScenarioName => _run.Scenario.Name;

    /// <summary>This copy's number, from 0: the same copy keeps its number across phases.</summary>
    public int CopyNumber { get; }

    /// <summary>The invocation's number across all copies of the run, from 0 (warm-up ones included).</summary>
    public long InvocationNumber { get; internal set; }

    /// <summary>Whatever the copy keeps between its invocations; disposed at the end of the run when it is <see cref="IDisposable"/>.</summary>
    public object? State { get; set; }

    /// <summary>A random source of this copy's own, seeded by its number alone: runs repeat, and scenarios over different engines draw the same values (equal work).</summary>
    public Random Random { get; }

    /// <summary>Cancelled when the run is cancelled; a phase's end does not cancel invocations in flight.</summary>
    public CancellationToken CancellationToken { get; }

    internal LoadRun Run => _run;

    /// <summary>When the invocation was due (open phases: its scheduled start), in Stopwatch ticks.</summary>
    internal long InvocationStart { get; set; }

    /// <summary>Whether no step of the current invocation has started yet: the first one is timed from <see cref="InvocationStart"/>.</summary>
    internal bool FirstStepPending { get; set; }
}
