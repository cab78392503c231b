using Voron.Diagnostics.Engines.SqlDocs;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Load;

namespace Voron.Diagnostics.Experiments.SqlDocs;

/// <summary>
/// One round of one engine on one workload as a scenario of the load model: <c>connections</c>
/// copies in a closed loop (<see cref="Simulation.KeepConstant"/>: each starts its next operation
/// when the previous one completed, and each completes at least one), a thread per copy for the
/// SQL engines and async tasks for the document API (<see cref="ISqlDocsEngine.UsesThreads"/> maps
/// to <see cref="ScenarioProps.WithThreadPerCopy"/>). The callers (the copies' states) open their
/// connections and prepare their statements before the clock starts. A writing round settles (the
/// engine's <see cref="ISqlDocsEngine.Settle"/>) inside its measured span.
/// </summary>
internal static class SqlDocsScenario
{
    /// <param name="tag">Distinguishes the ids this round inserts from every other round's.</param>
    /// <param name="rows">Counts the rows the reads returned (ok operations only).</param>
    public static ScenarioProps Create(ISqlDocsEngine engine, string workload, int connections, TimeSpan duration, long documents, string tag, RowCount rows)
    {
        var scenario = Scenario.Create($"{engine.Name} {workload}", context =>
            {
                var caller = (ISqlDocsCaller)context.State!;
                return Step.Run(workload, context, async () =>
                {
                    var read = await Operate(caller, workload, documents, tag, connections, context.InvocationNumber).ConfigureAwait(false);
                    Interlocked.Add(ref rows.Value, read);
                    return Response.Ok();
                });
            })
            .WithCopyState(_ => engine.CreateCaller()) // before the clock; disposed after the run
            .WithLoadSimulations(Simulation.KeepConstant(connections, duration));
        if (SqlDocsWorkloads.Writes(workload))
        {
            scenario = scenario.WithSettle(engine.Settle); // the work these writes cause, timed with them
        }

        return engine.UsesThreads ? scenario.WithThreadPerCopy() : scenario;
    }

    /// <summary>The rows a round's reads returned, added to by every copy.</summary>
    internal sealed class RowCount
    {
        public long Value;
    }

    /// <summary>One operation, the round's <paramref name="invocation"/>-th; returns the rows it read (0 for writes).</summary>
    private static async ValueTask<int> Operate(ISqlDocsCaller caller, string workload, long documents, string tag, int connections, long invocation)
    {
        var pick = Pick(documents, invocation);
        switch (workload)
        {
            case SqlDocsWorkloads.Lookup:
                var id = ProfileDataSet.Id(pick);
                return await caller.LoadAsync(id).ConfigureAwait(false) is { } profile && profile.Name.Length > 0
                    ? 1
                    : throw new InvalidOperationException($"the preloaded profile '{id}' is missing");
            case SqlDocsWorkloads.QueryEqual:
                return await caller.QueryEqualAsync(ProfileDataSet.City((int)(pick % ProfileDataSet.CityCount)), SqlDocsWorkloads.Take).ConfigureAwait(false);
            case SqlDocsWorkloads.QueryRange:
                var age = 18 + (int)(pick % 68);
                return await caller.QueryRangeAsync(age, age + 3, SqlDocsWorkloads.Take).ConfigureAwait(false);
            case SqlDocsWorkloads.Join:
                return await caller.JoinAsync(1 + (pick % Math.Max(1, documents - SqlDocsWorkloads.Take)), SqlDocsWorkloads.Take).ConfigureAwait(false);
            case SqlDocsWorkloads.Insert:
                await caller.InsertAsync(NewProfile(documents, tag, workload, connections, invocation)).ConfigureAwait(false);
                return 0;
            case SqlDocsWorkloads.CrossDoor:
                await caller.CrossDoorAsync(NewProfile(documents, tag, workload, connections, invocation), SqlDocsData.Amount(pick)).ConfigureAwait(false);
                return 0;
            default:
                throw new ArgumentException($"unknown sqldocs workload '{workload}'", nameof(workload));
        }
    }

    private static Profile NewProfile(long documents, string tag, string workload, int connections, long invocation)
    {
        var profile = ProfileDataSet.Create(documents + invocation);
        profile.Id = $"new/{tag}/{workload}/{connections}/{invocation}";
        return profile;
    }

    /// <summary>A pseudo-random document number for a round's <paramref name="invocation"/>-th operation: the same sequence for every engine.</summary>
    private static long Pick(long documents, long invocation)
    {
        var mixed = unchecked((ulong)invocation * 0x9E3779B97F4A7C15UL);
        return (long)((mixed >> 11) % (ulong)documents);
    }
}
