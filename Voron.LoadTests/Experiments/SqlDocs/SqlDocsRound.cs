using System.Diagnostics;
using Voron.LoadTests.Engines.SqlDocs;
using Voron.LoadTests.Experiments.Documents;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Experiments.SqlDocs;

/// <summary>
/// One round of one engine on one workload: <c>connections</c> callers in a closed loop (each
/// starts its next operation when the previous one completed) for a while, on threads for the SQL
/// engines and as async tasks for the document API (<see cref="ISqlDocsEngine.UsesThreads"/>).
/// Callers open their connections and prepare their statements before the clock starts. A
/// writing round ends with the engine's <see cref="ISqlDocsEngine.Settle"/>, inside its time.
/// </summary>
internal static class SqlDocsRound
{
    /// <summary>What a round did: every operation's latency, the wall time, and the rows the reads returned.</summary>
    public sealed record Result(LatencySample Latency, double Seconds, long Rows);

    /// <param name="tag">Distinguishes the ids this round inserts from every other round's.</param>
    public static async Task<Result> RunAsync(ISqlDocsEngine engine, string workload, int connections, TimeSpan duration, long documents, string tag)
    {
        var samples = Enumerable.Range(0, connections).Select(_ => new LatencySample()).ToArray();
        var rows = new long[connections];
        var callers = new List<ISqlDocsCaller>();
        try
        {
            for (var c = 0; c < connections; c++)
            {
                callers.Add(engine.CreateCaller());
            }

            var watch = Stopwatch.StartNew();
            if (engine.UsesThreads)
            {
                Exception? failure = null;
                var threads = Enumerable.Range(0, connections).Select(c => new Thread(() =>
                {
                    try
                    {
                        var sequence = 0;
                        do // at least one operation per caller, however late a busy machine starts it
                        {
                            var start = Stopwatch.GetTimestamp();
                            rows[c] += Operate(callers[c], workload, documents, tag, connections, c, sequence++).AsTask().GetAwaiter().GetResult();
                            samples[c].AddTicks(Stopwatch.GetTimestamp() - start);
                        }
                        while (watch.Elapsed < duration && Volatile.Read(ref failure) == null);
                    }
                    catch (Exception e)
                    {
                        Interlocked.CompareExchange(ref failure, e, null);
                    }
                })).ToList();
                threads.ForEach(t => t.Start());
                threads.ForEach(t => t.Join());
                if (failure != null)
                {
                    throw new InvalidOperationException($"{engine.Name} {workload} at {connections} connections failed: {failure.Message}", failure);
                }
            }
            else
            {
                await Task.WhenAll(Enumerable.Range(0, connections).Select(async c =>
                {
                    await Task.Yield();
                    var sequence = 0;
                    do
                    {
                        var start = Stopwatch.GetTimestamp();
                        rows[c] += await Operate(callers[c], workload, documents, tag, connections, c, sequence++).ConfigureAwait(false);
                        samples[c].AddTicks(Stopwatch.GetTimestamp() - start);
                    }
                    while (watch.Elapsed < duration);
                })).ConfigureAwait(false);
            }

            if (SqlDocsWorkloads.Writes(workload))
            {
                engine.Settle(); // the work these writes cause, timed with them
            }

            var all = new LatencySample();
            foreach (var sample in samples)
            {
                all.AddAll(sample);
            }

            return new Result(all, watch.Elapsed.TotalSeconds, rows.Sum());
        }
        finally
        {
            callers.ForEach(c => c.Dispose());
        }
    }

    /// <summary>One operation; returns the rows it read (0 for writes).</summary>
    private static async ValueTask<int> Operate(ISqlDocsCaller caller, string workload, long documents, string tag, int connections, int c, int sequence)
    {
        var pick = Pick(documents, c, sequence);
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
                await caller.InsertAsync(NewProfile(documents, tag, workload, connections, c, sequence)).ConfigureAwait(false);
                return 0;
            case SqlDocsWorkloads.CrossDoor:
                await caller.CrossDoorAsync(NewProfile(documents, tag, workload, connections, c, sequence), SqlDocsData.Amount(pick)).ConfigureAwait(false);
                return 0;
            default:
                throw new ArgumentException($"unknown sqldocs workload '{workload}'", nameof(workload));
        }
    }

    private static Profile NewProfile(long documents, string tag, string workload, int connections, int c, int sequence)
    {
        var profile = ProfileDataSet.Create(documents + (c * 10_000_000L) + sequence);
        profile.Id = $"new/{tag}/{workload}/{connections}/{c}/{sequence}";
        return profile;
    }

    /// <summary>A pseudo-random document number for a caller's operation: the same sequence for every engine.</summary>
    private static long Pick(long documents, int caller, int sequence)
    {
        var mixed = unchecked(((ulong)(uint)caller << 32 | (uint)sequence) * 0x9E3779B97F4A7C15UL);
        return (long)((mixed >> 11) % (ulong)documents);
    }
}
