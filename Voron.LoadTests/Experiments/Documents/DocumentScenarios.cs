using Voron.LoadTests.Capabilities.Documents;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// The documents experiment's runs as scenarios of the load model, one per engine, workload and
/// caller count, with one step named after the workload. Callers are closed loops
/// (<see cref="Simulation.KeepConstant"/>): async tasks for Voron, a thread each for the engines
/// whose APIs block (<see cref="IDocumentEngine.UsesThreads"/>). Each caller's engine handle is its
/// copy's state, made before the measured span. When a workload writes, the engine's
/// end-of-round work (Voron's data-file flush) is the scenario's settle, inside the measured span.
/// </summary>
internal static class DocumentScenarios
{
    /// <summary>An update whose expected version was no longer the stored one: counted in the conflicts column, not in ops.</summary>
    public const string Conflict = "conflict";

    /// <summary>A query that found nothing (a small data set can leave a city or an age range empty): not in ops.</summary>
    public const string Empty = "empty";

    /// <summary>One operation of caller <c>caller</c>, its <c>sequence</c>-th.</summary>
    public delegate ValueTask<Response> Operation(IDocumentCaller handle, int caller, int sequence);

    /// <summary><paramref name="callers"/> callers running <paramref name="operation"/> in a closed loop for <paramref name="duration"/>.</summary>
    public static ScenarioProps Closed(IDocumentEngine engine, string workload, int callers, TimeSpan duration, bool settle, Operation operation)
    {
        var scenario = Scenario.Create($"{engine.Name} {workload} {callers}", async context =>
            {
                var copy = (DocumentCopy)context.State!;
                var sequence = copy.Sequence++;
                return await Step.Run(workload, context, () => operation(copy.Handle, context.CopyNumber, sequence)).ConfigureAwait(false);
            })
            .WithCopyState(_ => new DocumentCopy(engine.CreateCaller())) // made before the clock, disposed after the run
            .WithoutWarmUp() // the experiment warms up on stores of its own
            .WithLoadSimulations(Simulation.KeepConstant(callers, duration));
        scenario = engine.UsesThreads ? scenario.WithThreadPerCopy() : scenario;
        return settle ? scenario.WithSettle(engine.EndRound) : scenario;
    }

    /// <summary>
    /// The bulk insert as one invocation of one copy, its end-of-round work the settle; <paramref name="written"/> is told how many documents it wrote.
    /// </summary>
    public static ScenarioProps Bulk(IDocumentEngine engine, IEnumerable<Profile> profiles, Action<long> written)
    {
        var scenario = Scenario.Create($"{engine.Name} {DocumentWorkloads.Bulk}", context => Step.Run(DocumentWorkloads.Bulk, context, async () =>
            {
                written(await engine.BulkInsertAsync(profiles).ConfigureAwait(false));
                return Response.Ok();
            }))
            .WithoutWarmUp()
            .WithLoadSimulations(Simulation.IterationsForConstant(copies: 1, iterations: 1))
            .WithSettle(engine.EndRound);
        return engine.UsesThreads ? scenario.WithThreadPerCopy() : scenario;
    }
}
