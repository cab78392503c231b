using System.Diagnostics;
using Voron.LoadTests.Engines.Documents;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Experiments.Documents;

/// <summary>
/// N callers in a closed loop against one engine for a while: each starts its next operation when
/// the previous one completed. Callers are async tasks for Voron and threads for the engines whose
/// APIs block (<see cref="IDocumentEngine.UsesThreads"/>). Every operation's latency is kept. When
/// asked, the engine's end-of-round work (Voron's data-file flush) runs inside the timed span.
/// </summary>
internal static class ClosedLoop
{
    /// <summary>One operation of caller <c>caller</c>, its <c>sequence</c>-th: true when it did its work (false: a conflict, retried by the next one).</summary>
    public delegate ValueTask<bool> Operation(IDocumentCaller handle, int caller, int sequence);

    public static async Task<DocumentRunResult> RunAsync(IDocumentEngine engine, string workload, int callers, TimeSpan duration, Operation operation, bool endRound)
    {
        var samples = Enumerable.Range(0, callers).Select(_ => new LatencySample()).ToArray();
        var conflicts = new long[callers];
        var handles = Enumerable.Range(0, callers).Select(_ => engine.CreateCaller()).ToArray();
        var watch = Stopwatch.StartNew();
        try
        {
            if (engine.UsesThreads)
            {
                Exception? failure = null;
                var threads = Enumerable.Range(0, callers).Select(caller => new Thread(() =>
                {
                    try
                    {
                        var sequence = 0;
                        do // at least one operation per caller, however late a busy machine starts it
                        {
                            var start = Stopwatch.GetTimestamp();
                            var done = operation(handles[caller], caller, sequence++).AsTask().GetAwaiter().GetResult();
                            Record(samples[caller], ref conflicts[caller], done, start);
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
                    throw new InvalidOperationException($"{engine.Name} {workload} at {callers} callers failed: {failure.Message}", failure);
                }
            }
            else
            {
                await Task.WhenAll(Enumerable.Range(0, callers).Select(async caller =>
                {
                    await Task.Yield();
                    var sequence = 0;
                    do
                    {
                        var start = Stopwatch.GetTimestamp();
                        var done = await operation(handles[caller], caller, sequence++).ConfigureAwait(false);
                        Record(samples[caller], ref conflicts[caller], done, start);
                    }
                    while (watch.Elapsed < duration);
                })).ConfigureAwait(false);
            }

            if (endRound)
            {
                engine.EndRound(); // the work these writes cause, timed with them
            }
        }
        finally
        {
            foreach (var handle in handles)
            {
                handle.Dispose();
            }
        }

        var seconds = watch.Elapsed.TotalSeconds;
        var all = new LatencySample();
        foreach (var sample in samples)
        {
            all.AddAll(sample);
        }

        return new DocumentRunResult(engine.Name, workload, callers, all.Count, seconds, all, conflicts.Sum());
    }

    private static void Record(LatencySample sample, ref long conflicts, bool done, long start)
    {
        if (done)
        {
            sample.AddTicks(Stopwatch.GetTimestamp() - start);
        }
        else
        {
            conflicts++;
        }
    }
}
