using System.Collections.Concurrent;
using System.Diagnostics;
using Voron.LoadTests.Load;

namespace Voron.LoadTests.Tests;

/// <summary>
/// The load model (Voron.LoadTests/Load): schedules, copies, failures and percentiles. Every
/// assertion holds however busy the machine is: counts are exact, and latencies are only bounded
/// from below (a slow machine makes them longer, never shorter).
/// </summary>
public sealed class LoadModelTests
{
    [Fact]
    public async Task Inject_starts_the_scheduled_number_of_invocations()
    {
        var started = 0;
        var scenario = Scenario.Create("inject", _ =>
            {
                Interlocked.Increment(ref started);
                return ValueTask.FromResult(Response.Ok());
            })
            .WithLoadSimulations(Simulation.Inject(rate: 400, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(500)));

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.InRange(started, 196, 204); // 200 scheduled, within 2%
        Assert.Equal(started, stats.Scheduled);
        Assert.Equal(started, stats.AllOkCount);
        Assert.Equal(0, stats.AllFailCount);
    }

    [Fact]
    public async Task Inject_measures_from_the_scheduled_start_so_a_queue_behind_a_slow_step_is_latency()
    {
        // One thread serves 100 invocations scheduled over 0.5 s, each taking at least 10 ms: the
        // last is due at 0.5 s and cannot end before 1 s, so measured from its scheduled start it
        // took at least 0.5 s, though the step itself took 10 ms.
        var scenario = Scenario.Create("slow", context => Step.Run("sleep", context, () =>
            {
                Thread.Sleep(10);
                return ValueTask.FromResult(Response.Ok());
            }))
            .WithThreadPerCopy(openThreads: 1)
            .WithLoadSimulations(Simulation.Inject(rate: 200, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(500)));

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.Equal(100, stats.Scheduled);
        Assert.Equal(100, stats.AllOkCount);
        Assert.True(stats.Ok.Latency.MaxMs >= 450, $"max latency {stats.Ok.Latency.MaxMs} ms: not measured from the scheduled start");
        Assert.True(stats.Step("sleep").Ok.Latency.MaxMs >= 450, "the first step is timed from the scheduled start too");
        Assert.True(stats.Seconds >= 0.95, $"the run ends when the last invocation does: {stats.Seconds} s");
    }

    [Fact]
    public async Task RampingInject_schedules_the_integral_of_its_rate()
    {
        var scenario = Scenario.Create("ramp", _ => ValueTask.FromResult(Response.Ok()))
            .WithLoadSimulations(
                Simulation.Inject(rate: 200, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(250)),
                Simulation.RampingInject(rate: 600, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(500)));

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.Equal(50 + 200, stats.Scheduled); // 200/s for 0.25 s, then 200 -> 600/s over 0.5 s (mean 400/s)
        Assert.Equal(250, stats.AllOkCount);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task KeepConstant_holds_its_copies(bool threadPerCopy)
    {
        const int copies = 6;
        var running = 0;
        var most = 0;
        var entered = 0;
        var allIn = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var seen = new ConcurrentDictionary<int, int>();
        var scenario = Scenario.Create("keep", async context =>
            {
                var now = Interlocked.Increment(ref running);
                InterlockedMax(ref most, now);
                seen.AddOrUpdate(context.CopyNumber, 1, (_, n) => n + 1);
                if (seen[context.CopyNumber] == 1 && Interlocked.Increment(ref entered) == copies)
                {
                    allIn.SetResult();
                }

                if (seen[context.CopyNumber] == 1)
                {
                    await allIn.Task.WaitAsync(TimeSpan.FromSeconds(30)); // every copy's first invocation overlaps every other's
                }

                await Task.Yield();
                Interlocked.Decrement(ref running);
                return Response.Ok();
            })
            .WithLoadSimulations(Simulation.KeepConstant(copies, TimeSpan.FromMilliseconds(200)));
        if (threadPerCopy)
        {
            scenario = scenario.WithThreadPerCopy();
        }

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.Equal(copies, most);
        Assert.Equal(Enumerable.Range(0, copies), seen.Keys.Order());
        Assert.Equal(seen.Values.Sum(), stats.AllOkCount);
        Assert.Equal(0, stats.Scheduled);
    }

    [Fact]
    public async Task Failures_and_exceptions_are_counted_by_status_code_not_thrown()
    {
        var scenario = Scenario.Create("faulty", context => Step.Run("work", context, () => (context.InvocationNumber % 3) switch
            {
                0 => throw new InvalidOperationException("disk on fire"),
                1 => ValueTask.FromResult(Response.Fail("conflict", "someone else won")),
                _ => ValueTask.FromResult(Response.Ok("200", sizeBytes: 10)),
            }))
            .WithLoadSimulations(Simulation.Inject(rate: 300, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(100)));
        var throwing = Scenario.Create("throwing", _ => throw new TimeoutException("late"))
            .WithLoadSimulations(Simulation.KeepConstant(1, TimeSpan.FromMilliseconds(50)));

        var stats = await LoadRunner.RunAsync(scenario);
        var thrown = await LoadRunner.RunAsync(throwing);

        Assert.Equal(30, stats.AllRequestCount);
        Assert.Equal(10, stats.AllOkCount);
        Assert.Equal(20, stats.AllFailCount);
        Assert.Equal(100, stats.Ok.Bytes);
        var work = stats.Step("work");
        Assert.Equal(10, work.Ok.Count);
        Assert.Equal(20, work.Fail.Count);
        var exception = Assert.Single(work.StatusCodes, s => s.StatusCode == Response.ExceptionStatus);
        Assert.Equal(10, exception.Count);
        Assert.Contains("InvalidOperationException: disk on fire", exception.Message, StringComparison.Ordinal);
        Assert.Equal(10, Assert.Single(work.StatusCodes, s => s.StatusCode == "conflict").Count);
        Assert.Equal(10, Assert.Single(stats.StatusCodes, s => s.StatusCode == "200" && !s.IsError).Count);
        Assert.Equal(10, stats.FailuresExcept("conflict"));
        Assert.Equal(0, stats.FailuresExcept("conflict", Response.ExceptionStatus));
        Assert.True(thrown.AllFailCount >= 1 && thrown.AllOkCount == 0);
        Assert.Contains("TimeoutException: late", Assert.Single(thrown.StatusCodes).Message, StringComparison.Ordinal);
        Assert.Throws<KeyNotFoundException>(() => stats.Step("missing"));
    }

    [Fact]
    public void Percentiles_match_a_sorted_array_within_the_histogram_precision()
    {
        var random = new Random(7);
        var microseconds = Enumerable.Range(0, 20_000).Select(_ => (long)Math.Exp(random.NextDouble() * 12)).ToArray(); // 1 us to 160 ms
        var meter = new Meter("known");
        foreach (var us in microseconds)
        {
            meter.Record(Response.Ok(), us * Stopwatch.Frequency / 1_000_000);
        }

        meter.Drain();
        var latency = meter.OkStats(1).Latency;
        var sorted = microseconds.Select(us => us / 1000.0).Order().ToArray();

        AssertClose(NearestRank(sorted, 50), latency.P50Ms);
        AssertClose(NearestRank(sorted, 75), latency.P75Ms);
        AssertClose(NearestRank(sorted, 95), latency.P95Ms);
        AssertClose(NearestRank(sorted, 99), latency.P99Ms);
        AssertClose(sorted[^1], latency.MaxMs);
        AssertClose(sorted[0], latency.MinMs);
        AssertClose(sorted.Average(), latency.MeanMs);
        Assert.Equal(microseconds.Length, meter.OkCount);
    }

    [Fact]
    public async Task Settle_runs_inside_the_measured_span_and_warm_up_results_are_forgotten()
    {
        long calls = 0;
        var initialized = false;
        var cleaned = false;
        var states = new ConcurrentBag<Disposable>();
        var scenario = Scenario.Create("lifecycle", context =>
            {
                context.State ??= Add(states, new Disposable());
                Interlocked.Increment(ref calls);
                return ValueTask.FromResult(Response.Ok());
            })
            .WithInit(_ => { initialized = true; return Task.CompletedTask; })
            .WithClean(() => { cleaned = states.All(s => s.Disposed); return Task.CompletedTask; })
            .WithSettle(() => Thread.Sleep(200))
            .WithWarmUpDuration(TimeSpan.FromMilliseconds(100))
            .WithLoadSimulations(Simulation.Inject(rate: 100, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(200)));

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.True(initialized);
        Assert.True(cleaned, "every copy's state is disposed before the clean-up runs");
        Assert.NotEmpty(states);
        Assert.Equal(20, stats.AllOkCount);
        Assert.Equal(30, Interlocked.Read(ref calls)); // 10 in the warm-up, not counted
        Assert.True(stats.SettleSeconds >= 0.19 && stats.Seconds >= 0.39, $"settle {stats.SettleSeconds} s of {stats.Seconds} s");
        Assert.Equal(20, stats.Timeline.Sum(p => p.Ok));
    }

    [Fact]
    public async Task A_scenario_without_simulations_or_with_bad_ones_is_refused()
    {
        await Assert.ThrowsAsync<ArgumentException>(() => LoadRunner.RunAsync(Scenario.Create("none", _ => ValueTask.FromResult(Response.Ok()))));
        Assert.Throws<ArgumentOutOfRangeException>(() => Simulation.KeepConstant(0, TimeSpan.FromSeconds(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => Simulation.Inject(10, TimeSpan.Zero, TimeSpan.FromSeconds(1)));
        Assert.Throws<ArgumentOutOfRangeException>(() => Simulation.Pause(TimeSpan.FromSeconds(-1)));
    }

    [Fact]
    public async Task The_saturation_sweep_finds_the_highest_ok_rate()
    {
        var tried = new List<double>();
        var (rate, reachedMax) = await SaturationSweep.FindAsync(100, 2, 100_000, 3, r =>
        {
            tried.Add(r);
            return Task.FromResult(r <= 1000);
        });

        Assert.False(reachedMax);
        Assert.InRange(rate, 800, 1000); // 800 ok, 1,600 and 3,200 bad, then bisection between 800 and 1,600
        Assert.Equal([100, 200, 400, 800, 1600, 3200], tried.Take(6));
        Assert.Equal(9, tried.Count);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task IterationsForConstant_runs_exactly_its_iterations(bool threadPerCopy)
    {
        long calls = 0;
        var scenario = Scenario.Create("fixed", _ =>
            {
                Interlocked.Increment(ref calls);
                return ValueTask.FromResult(Response.Ok());
            })
            .WithLoadSimulations(Simulation.IterationsForConstant(copies: 4, iterations: 1_001));
        if (threadPerCopy)
        {
            scenario = scenario.WithThreadPerCopy();
        }

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.Equal(1_001, calls);
        Assert.Equal(1_001, stats.AllOkCount);
    }

    [Fact]
    public async Task Copy_states_are_made_before_the_clock_and_the_measurement_start_hook_runs_once_after_the_warm_up()
    {
        var made = new ConcurrentBag<int>();
        var order = new ConcurrentQueue<string>();
        var scenario = Scenario.Create("states", context =>
            {
                Assert.Equal(context.CopyNumber, (int)context.State!);
                return ValueTask.FromResult(Response.Ok());
            })
            .WithCopyState(copy =>
            {
                made.Add(copy);
                order.Enqueue("state");
                return copy;
            })
            .WithMeasurementStart(() => order.Enqueue("start"))
            .WithSettle(() => order.Enqueue("settle"))
            .WithWarmUpDuration(TimeSpan.FromMilliseconds(50))
            .WithLoadSimulations(Simulation.KeepConstant(3, TimeSpan.FromMilliseconds(100)));

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.Equal([0, 1, 2], made.Order());
        Assert.Equal(["state", "state", "state", "settle", "start", "settle"], order);
        Assert.Equal(0, stats.AllFailCount);
    }

    [Fact]
    public async Task Copies_draw_the_same_random_values_whatever_the_scenario_is_called()
    {
        async Task<long[]> DrawsAsync(string name)
        {
            var draws = new long[3];
            await LoadRunner.RunAsync(Scenario.Create(name, context =>
                {
                    Interlocked.CompareExchange(ref draws[context.CopyNumber], context.Random.NextInt64(1, long.MaxValue), 0);
                    return ValueTask.FromResult(Response.Ok());
                })
                .WithLoadSimulations(Simulation.KeepConstant(3, TimeSpan.FromMilliseconds(30)))); // every copy invokes at least once
            return draws;
        }

        var first = await DrawsAsync("engine-a");
        Assert.Equal(first, await DrawsAsync("another engine"));
        Assert.Equal(3, first.Distinct().Count());
        Assert.Equal(new Random((0 * 40_503) + 0x5eed).NextInt64(1, long.MaxValue), first[0]); // no per-process hashing in the seed
    }

    [Fact]
    public async Task Rounds_pool_their_histograms_as_one_run_would()
    {
        async Task<ScenarioStats> RunAsync(int sleepMs) => await LoadRunner.RunAsync(Scenario.Create("round", _ =>
            {
                Thread.Sleep(sleepMs);
                return ValueTask.FromResult(Response.Ok());
            })
            .WithLoadSimulations(Simulation.IterationsForConstant(1, 20)));

        var fast = await RunAsync(0);
        var slow = await RunAsync(5);
        var pooled = LatencyStats.Pooled([fast.Ok, slow.Ok]);

        Assert.Equal(Math.Max(fast.Ok.Latency.MaxMs, slow.Ok.Latency.MaxMs), pooled.MaxMs);
        Assert.Equal(Math.Min(fast.Ok.Latency.MinMs, slow.Ok.Latency.MinMs), pooled.MinMs);
        Assert.True(pooled.P75Ms >= 5, $"three quarters of the pooled 40 include the 20 slow ones: p75 {pooled.P75Ms} ms");
        Assert.True(pooled.P999Ms >= pooled.P99Ms);
        Assert.Throws<ArgumentException>(() => LatencyStats.Pooled([new MeasurementStats(1, 1, LatencyStats.Empty, 0)]));
    }

    [Fact]
    public async Task An_open_phase_refuses_invocations_beyond_its_bound_in_flight_as_overloaded()
    {
        var scenario = Scenario.Create("stuck", async context =>
            {
                while (context.Run.Scheduled < 40)
                {
                    await Task.Delay(5); // nothing finishes before the last invocation is due
                }

                return Response.Ok();
            })
            .WithMaxInFlight(10)
            .WithLoadSimulations(Simulation.Inject(rate: 200, interval: TimeSpan.FromSeconds(1), during: TimeSpan.FromMilliseconds(200)));

        var stats = await LoadRunner.RunAsync(scenario);

        Assert.Equal(40, stats.Scheduled);
        Assert.Equal(10, stats.AllOkCount);
        Assert.Equal(30, stats.CountOf(LoadRun.OverloadedStatus));
        Assert.False(SaturationSweep.IsOk(stats, 200));
    }

    private static void AssertClose(double expected, double actual) =>
        Assert.True(Math.Abs(expected - actual) <= (expected * 0.002) + 0.0002, $"expected {expected}, histogram says {actual}");

    private static double NearestRank(double[] sorted, double percentile) =>
        sorted[Math.Clamp((int)Math.Ceiling(percentile / 100 * sorted.Length) - 1, 0, sorted.Length - 1)];

    private static void InterlockedMax(ref int target, int value)
    {
        int seen;
        while ((seen = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }

    private static T Add<T>(ConcurrentBag<T> bag, T item)
    {
        bag.Add(item);
        return item;
    }

    private sealed class Disposable : IDisposable
    {
        public bool Disposed { get; private set; }

        public void Dispose() => Disposed = true;
    }
}
