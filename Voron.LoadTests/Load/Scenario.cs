namespace Voron.LoadTests.Load;

/// <summary>
/// A scenario in NBomber's vocabulary: a name, the function one invocation runs (usually one or
/// more <see cref="Step"/>s), and how it is set up, loaded and cleaned up. Immutable: each
/// <c>With</c> returns a changed copy.
/// <code>
/// var scenario = Scenario.Create("save", async context =>
///     {
///         var caller = (IMyCaller)context.State!;
///         return await Step.Run("insert", context, async () => { await caller.InsertAsync(); return Response.Ok(); });
///     })
///     .WithCopyState(copy => engine.CreateCaller())   // one per copy, made before the clock
///     .WithLoadSimulations(Simulation.KeepConstant(copies: 16, during: TimeSpan.FromSeconds(5)))
///     .WithSettle(engine.Flush);
/// var stats = await LoadRunner.RunAsync(scenario, new LoadRunOptions { Progress = Console.Out });
/// </code>
/// </summary>
internal static class Scenario
{
    public static ScenarioProps Create(string name, Func<ScenarioContext, ValueTask<Response>> run)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        ArgumentNullException.ThrowIfNull(run);
        return new ScenarioProps(name, run);
    }
}

/// <summary>A scenario's definition (<see cref="Scenario.Create"/>).</summary>
/// <param name="Name">Names the scenario in progress lines and results.</param>
/// <param name="Run">One invocation: returns its response; an exception is a failure with status <see cref="Response.ExceptionStatus"/>.</param>
internal sealed record ScenarioProps(string Name, Func<ScenarioContext, ValueTask<Response>> Run)
{
    /// <summary>Runs once before the warm-up (not timed); an exception here fails the run.</summary>
    public Func<CancellationToken, Task>? Init { get; init; }

    /// <summary>Runs once at the end (not timed), also after a failed run, after every copy's <see cref="ScenarioContext.State"/> is disposed.</summary>
    public Func<Task>? Clean { get; init; }

    /// <summary>
    /// The work the scenario's writes leave that the engine does after acknowledging them (Voron's
    /// data-file flush, a WAL checkpoint): run after the last phase, inside the measured span, so
    /// the scenario's rate pays for it and the next scenario does not (the experiments' fairness rule).
    /// </summary>
    public Func<Task>? Settle { get; init; }

    /// <summary>
    /// Makes a copy's <see cref="ScenarioContext.State"/> (its connection, its prepared statements)
    /// before the clock starts: for every copy a closed phase or the thread-per-copy open threads
    /// will use; copies an async open phase adds later make theirs on their first invocation (timed).
    /// </summary>
    public Func<int, object>? CopyState { get; init; }

    /// <summary>Runs right before the measured span's clock starts (after the warm-up and its settle): where counters (bytes written, flushes) take their starting values.</summary>
    public Action? MeasurementStart { get; init; }

    /// <summary>How long the first phase's load runs unmeasured before the measured phases (default none); the settle runs after it, unmeasured too.</summary>
    public TimeSpan WarmUp { get; init; }

    /// <summary>The phases, run in order.</summary>
    public IReadOnlyList<LoadSimulation> LoadSimulations { get; init; } = [];

    /// <summary>
    /// Whether each copy runs on a dedicated thread, for engines whose APIs block (Microsoft.Data.Sqlite,
    /// LiteDB): closed phases get a thread per copy; open phases a pool of <see cref="OpenThreads"/>
    /// threads that take invocations in schedule order. Otherwise copies are async tasks and each
    /// open invocation starts on the thread pool.
    /// </summary>
    public bool ThreadPerCopy { get; init; }

    /// <summary>The threads that serve open phases when <see cref="ThreadPerCopy"/> (default 64): an application's request threads.</summary>
    public int OpenThreads { get; init; } = 64;

    /// <summary>
    /// The most invocations an open phase keeps in flight (default 10,000): one due beyond that is
    /// not started but counted as a failure with status <see cref="LoadRun.OverloadedStatus"/>, so a
    /// rate far beyond an engine's capacity ends with the phase instead of queueing without bound.
    /// </summary>
    public int MaxInFlight { get; init; } = 10_000;

    public ScenarioProps WithMaxInFlight(int invocations)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(invocations);
        return this with { MaxInFlight = invocations };
    }

    public ScenarioProps WithInit(Func<CancellationToken, Task> init) => this with { Init = init };

    public ScenarioProps WithClean(Func<Task> clean) => this with { Clean = clean };

    public ScenarioProps WithCopyState(Func<int, object> create) => this with { CopyState = create };

    public ScenarioProps WithMeasurementStart(Action start) => this with { MeasurementStart = start };

    public ScenarioProps WithSettle(Func<Task> settle) => this with { Settle = settle };

    public ScenarioProps WithSettle(Action settle) => this with { Settle = () => { settle(); return Task.CompletedTask; } };

    public ScenarioProps WithWarmUpDuration(TimeSpan duration) =>
        duration >= TimeSpan.Zero ? this with { WarmUp = duration } : throw new ArgumentOutOfRangeException(nameof(duration), duration, "A warm-up cannot be negative.");

    public ScenarioProps WithoutWarmUp() => this with { WarmUp = TimeSpan.Zero };

    public ScenarioProps WithLoadSimulations(params LoadSimulation[] simulations)
    {
        ArgumentOutOfRangeException.ThrowIfZero(simulations.Length);
        return this with { LoadSimulations = simulations };
    }

    public ScenarioProps WithThreadPerCopy(int openThreads = 64)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(openThreads);
        return this with { ThreadPerCopy = true, OpenThreads = openThreads };
    }

    /// <summary>The measured phases' total length, warm-up excluded.</summary>
    public TimeSpan Duration => LoadSimulations.Aggregate(TimeSpan.Zero, (sum, s) => sum + s.During);
}
