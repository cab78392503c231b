using System.Diagnostics;
using System.Runtime.ExceptionServices;
using Voron.LoadTests.Engines;

namespace Voron.LoadTests.Experiments;

internal sealed partial class KvExperiment
{
    /// <summary>
    /// Point reads of <paramref name="keys"/> split over <paramref name="threads"/> threads, each
    /// with its own reader opened on that thread before the clock starts. The time is the wall
    /// time from releasing all threads together to the last one finishing; every key must be found.
    /// </summary>
    private static KvResult MeasureReads(ExperimentContext context, IKvEngine engine, string workload, byte[][] keys, int threads)
    {
        context.Progress($"{engine.Name,-7} {workload} ...");
        GC.Collect();
        GC.WaitForPendingFinalizers();

        var found = new long[threads];
        var finished = new long[threads];
        var errors = new Exception?[threads];
        using var ready = new CountdownEvent(threads);
        using var go = new ManualResetEventSlim();
        var workers = new Thread[threads];
        for (var t = 0; t < threads; t++)
        {
            var index = t;
            var from = (int)((long)keys.Length * index / threads);
            var to = (int)((long)keys.Length * (index + 1) / threads);
            workers[t] = new Thread(() => ReadShare(index, from, to))
            {
                IsBackground = true,
                Name = $"kv-{engine.Name}-reader-{index}",
            };
            workers[t].Start();
        }

        ready.Wait();
        var start = Stopwatch.GetTimestamp();
        go.Set();
        foreach (var worker in workers)
        {
            worker.Join();
        }

        foreach (var error in errors)
        {
            if (error != null)
            {
                ExceptionDispatchInfo.Throw(error);
            }
        }

        if (found.Sum() != keys.Length)
        {
            throw new InvalidOperationException($"{engine.Name}: {workload} found {found.Sum():N0} of {keys.Length:N0} keys.");
        }

        var result = new KvResult(engine.Name, workload, keys.Length, (double)(finished.Max() - start) / Stopwatch.Frequency);
        Report(context, result);
        return result;

        void ReadShare(int index, int from, int to)
        {
            try
            {
                IKvReader reader;
                try
                {
                    reader = engine.OpenReader();
                }
                finally
                {
                    ready.Signal();
                }

                using (reader)
                {
                    go.Wait();
                    long hits = 0;
                    for (var i = from; i < to; i++)
                    {
                        if (reader.TryGet(keys[i], out _))
                        {
                            hits++;
                        }
                    }

                    finished[index] = Stopwatch.GetTimestamp();
                    found[index] = hits;
                }
            }
#pragma warning disable CA1031 // Any failure on a reader thread is carried back and rethrown on the experiment's thread.
            catch (Exception e)
#pragma warning restore CA1031
            {
                errors[index] = e;
            }
        }
    }
}
