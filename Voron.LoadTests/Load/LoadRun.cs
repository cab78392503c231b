using System.Collections.Concurrent;
using Voron.LoadTests.Measurement.Interop;

namespace Voron.LoadTests.Load;

/// <summary>
/// One scenario's run in progress (<see cref="LoadRunner"/>): its copies, meters, timeline and the
/// phases. Closed phases run each copy in a loop (a task, or a thread with
/// <see cref="ScenarioProps.ThreadPerCopy"/>). Open phases run a dispatcher thread that sleeps
/// until the next invocation is due and starts every due one, never waiting for one to finish;
/// each invocation's latency runs from when it was due.
/// </summary>
internal sealed class LoadRun
{
    /// <summary>The dispatcher's shortest sleep: at most 20,000 wake-ups a second, each starting every invocation then due.</summary>
    private static readonly long MinimumSleep = Stopwatch.Frequency / 20_000;

    private readonly LoadRunOptions _options;
    private readonly CancellationToken _cancellation;
    private readonly Meter _scenario;
    private readonly ConcurrentDictionary<string, Meter> _steps = new(StringComparer.Ordinal);
    private readonly List<string> _stepOrder = [];
    private readonly List<ScenarioContext> _copies = [];
    private readonly ConcurrentStack<ScenarioContext> _free = new();
    private readonly List<TimelinePoint> _timeline = [];
    private long _invocations;
    private long _scheduled;
    private int _running;
    private LoadSimulation? _phase;
    private long _phaseStart;
    private long _phaseEnd;
    private TaskCompletionSource<long>? _firstGo;

    /// <summary>The status of an open-phase invocation refused because <see cref="ScenarioProps.MaxInFlight"/> were in flight.</summary>
    public const string OverloadedStatus = "overloaded";

    public LoadRun(ScenarioProps scenario, LoadRunOptions options, CancellationToken cancellation)
    {
        Scenario = scenario;
        _options = options;
        _cancellation = cancellation;
        _scenario = new Meter(scenario.Name);
    }

    public ScenarioProps Scenario { get; }

    /// <summary>Invocations the open phases have scheduled so far (refused ones included).</summary>
    internal long Scheduled => Interlocked.Read(ref _scheduled);

    /// <summary>The meter of the step named <paramref name="name"/>, made on first use.</summary>
    public Meter Step(string name)
    {
        if (_steps.TryGetValue(name, out var meter))
        {
            return meter;
        }

        lock (_stepOrder)
        {
            meter = _steps.GetOrAdd(name, n => new Meter(n));
            if (!_stepOrder.Contains(name))
            {
                _stepOrder.Add(name);
            }

            return meter;
        }
    }

    /// <summary>Forgets the warm-up's results.</summary>
    public void Reset()
    {
        _scenario.Reset();
        foreach (var meter in _steps.Values)
        {
            meter.Reset();
        }

        Interlocked.Exchange(ref _scheduled, 0);
    }

    /// <summary>The measured phases, the settle, and the results.</summary>
    public async Task<ScenarioStats> MeasureAsync()
    {
        // The clock starts when the first phase goes (after its threads, if any, are up and waiting).
        var firstGo = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
        _firstGo = firstGo;
        var phases = RunPhasesAsync();
        var started = await Task.WhenAny(firstGo.Task, phases).ConfigureAwait(false);
        if (started != firstGo.Task)
        {
            await phases.ConfigureAwait(false); // a phase failed before going: rethrow
        }

        var start = await firstGo.Task.ConfigureAwait(false);
        using var stop = new CancellationTokenSource();
        var reporting = ReportAsync(start, stop.Token);
        await phases.ConfigureAwait(false);

        var settleStart = Stopwatch.GetTimestamp();
        if (Scenario.Settle != null)
        {
            await Scenario.Settle().ConfigureAwait(false);
        }

        var end = Stopwatch.GetTimestamp();
        await stop.CancelAsync().ConfigureAwait(false);
        await reporting.ConfigureAwait(false);
        Sample(start, end, lastSample: ref _lastSample); // the last, partial interval
        var seconds = Seconds(end - start);
        lock (_stepOrder)
        {
            return new ScenarioStats(
                Scenario.Name,
                Scenario.LoadSimulations,
                seconds,
                Seconds(end - settleStart),
                Interlocked.Read(ref _scheduled),
                _scenario.OkStats(seconds),
                _scenario.FailStats(seconds),
                [.. _stepOrder.Select(name => _steps[name].ToStepStats(seconds))],
                _scenario.StatusCodes(),
                [.. _timeline]);
        }
    }

    private async Task RunPhasesAsync()
    {
        var previousRate = 0.0;
        foreach (var phase in Scenario.LoadSimulations)
        {
            if (_cancellation.IsCancellationRequested)
            {
                break;
            }

            await RunPhaseAsync(phase, previousRate).ConfigureAwait(false);
            previousRate = phase.RateAt(phase.During.TotalSeconds, previousRate) ?? 0;
        }

        Go(null); // no phase ran (cancelled): the clock starts and stops here
    }

    public Task RunPhaseAsync(LoadSimulation phase, double previousRate) => phase switch
    {
        KeepConstant keep => RunClosedAsync(keep, keep.Copies, iterations: null),
        IterationsForConstant fixedWork => RunClosedAsync(fixedWork, fixedWork.Copies, fixedWork.Iterations),
        Pause pause => PauseAsync(pause),
        _ => RunOpenAsync(phase, previousRate),
    };

    /// <summary>Starts <paramref name="phase"/>'s clock; the first phase of the measurement starts the measured span's (after <see cref="ScenarioProps.MeasurementStart"/>).</summary>
    private void Go(LoadSimulation? phase)
    {
        var first = Interlocked.Exchange(ref _firstGo, null);
        if (first != null)
        {
            Scenario.MeasurementStart?.Invoke();
        }

        var now = Stopwatch.GetTimestamp();
        if (phase != null)
        {
            _phase = phase;
            _phaseStart = now;
            _phaseEnd = now + (long)(phase.During.TotalSeconds * Stopwatch.Frequency);
        }

        first?.TrySetResult(now);
    }

    private async Task PauseAsync(Pause pause)
    {
        Go(pause);
        await Task.Delay(pause.During, _cancellation).ContinueWith(_ => { }, TaskScheduler.Default).ConfigureAwait(false);
    }

    /// <summary>Makes, before any clock starts, the copies (and their states) the phases will surely use.</summary>
    public void CreateCopies()
    {
        var copies = Scenario.LoadSimulations.Select(s => s switch { KeepConstant k => k.Copies, IterationsForConstant i => i.Copies, _ => 0 }).DefaultIfEmpty(0).Max();
        if (Scenario.ThreadPerCopy && Scenario.LoadSimulations.Any(s => s is Inject or RampingInject))
        {
            copies = Math.Max(copies, Scenario.OpenThreads);
        }

        for (var i = 0; i < copies; i++)
        {
            var context = Copy(i);
            context.State ??= Scenario.CopyState?.Invoke(i);
        }
    }

    public void DisposeStates()
    {
        foreach (var copy in _copies)
        {
            (copy.State as IDisposable)?.Dispose();
            copy.State = null;
        }
    }

    private ScenarioContext Copy(int number)
    {
        lock (_copies)
        {
            while (_copies.Count <= number)
            {
                _copies.Add(new ScenarioContext(this, _copies.Count, _cancellation));
            }

            return _copies[number];
        }
    }

    /// <summary>A closed phase: each copy invokes in a loop until the phase's time is up, or until <paramref name="iterations"/> invocations in all have started.</summary>
    private async Task RunClosedAsync(LoadSimulation phase, int copies, long? iterations)
    {
        var issued = 0L;
        bool More() => iterations is { } total
            ? Interlocked.Increment(ref issued) <= total
            : Stopwatch.GetTimestamp() < _phaseEnd && !_cancellation.IsCancellationRequested;
        bool First() => iterations is not { } total || Interlocked.Increment(ref issued) <= total;
        if (Scenario.ThreadPerCopy)
        {
            // The threads start and wait at a gate; the phase's clock starts when all are waiting.
            using var gate = new ManualResetEventSlim(false);
            var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            var waiting = 0;
            var threads = OnThreadsAsync(copies, "closed-loop copy", copy =>
            {
                var context = Copy(copy);
                if (Interlocked.Increment(ref waiting) == copies)
                {
                    ready.SetResult();
                }

                gate.Wait();
                for (var more = First(); more; more = More()) // timed: at least one invocation per copy, however late a busy machine starts it
                {
                    InvokeAsync(context, Stopwatch.GetTimestamp()).AsTask().GetAwaiter().GetResult();
                }
            });
            await Task.WhenAny(ready.Task, threads).ConfigureAwait(false);
            Volatile.Write(ref _running, copies);
            Go(phase);
            gate.Set();
            await threads.ConfigureAwait(false);
        }
        else
        {
            Volatile.Write(ref _running, copies);
            Go(phase);
            await Task.WhenAll(Enumerable.Range(0, copies).Select(copy => Task.Run(async () =>
            {
                var context = Copy(copy);
                for (var more = First(); more; more = More())
                {
                    await InvokeAsync(context, Stopwatch.GetTimestamp()).ConfigureAwait(false);
                }
            }))).ConfigureAwait(false);
        }

        Volatile.Write(ref _running, 0);
    }

    /// <summary>
    /// An open phase: a dispatcher thread starts invocation k when it is due (when the phase's
    /// rate, integrated from its start, reaches k + 1). Async scenarios start each on the thread
    /// pool in a free copy (a new copy when all are busy); thread-per-copy scenarios hand it to
    /// <see cref="ScenarioProps.OpenThreads"/> threads in schedule order.
    /// </summary>
    private async Task RunOpenAsync(LoadSimulation phase, double previousRate)
    {
        var schedule = new Schedule(phase, previousRate);
        var queue = Scenario.ThreadPerCopy ? new BlockingCollection<long>() : null;
        var pending = new List<Task>();
        Task? workers = null;
        if (queue != null)
        {
            workers = OnThreadsAsync(Scenario.OpenThreads, "open-loop worker", copy =>
            {
                var context = Copy(copy);
                foreach (var due in queue.GetConsumingEnumerable())
                {
                    InvokeAsync(context, due).AsTask().GetAwaiter().GetResult();
                    Interlocked.Decrement(ref _running);
                }
            });
        }

        else
        {
            _free.Clear();
            lock (_copies)
            {
                _free.PushRange([.. _copies.AsEnumerable().Reverse()]); // the copies made before the clock are used first, copy 0 on top
            }
        }

        Go(phase);
        var dispatched = await OnThreadsAsync(1, "open-loop dispatcher", _ =>
        {
            try
            {
                Dispatch(schedule, queue, pending);
            }
            finally
            {
                queue?.CompleteAdding(); // the workers end even when the dispatcher failed
            }
        }, priority: ThreadPriority.AboveNormal).ContinueWith(t => t, TaskScheduler.Default).ConfigureAwait(false);

        await Task.WhenAll(pending).ConfigureAwait(false);
        if (workers != null)
        {
            await workers.ConfigureAwait(false);
        }

        await dispatched.ConfigureAwait(false); // rethrows a dispatcher failure
        queue?.Dispose();
    }

    /// <summary>The dispatcher's loop: sleeps until the next invocation is due, then starts every one that is.</summary>
    private void Dispatch(Schedule schedule, BlockingCollection<long>? queue, List<Task> pending)
    {
        var start = _phaseStart;
        for (long k = 0; k < schedule.Count && !_cancellation.IsCancellationRequested;)
        {
            var now = Stopwatch.GetTimestamp();
            for (; k < schedule.Count && start + schedule.TicksOf(k) <= now; k++)
            {
                var due = start + schedule.TicksOf(k);
                Interlocked.Increment(ref _scheduled);
                if (Volatile.Read(ref _running) >= Scenario.MaxInFlight)
                {
                    // Too far behind: refused at once, as a server with a bounded queue answers 503,
                    // so a saturated engine's backlog (and the run) stays bounded.
                    _scenario.Record(Response.Fail(OverloadedStatus, $"more than {Scenario.MaxInFlight:N0} invocations were in flight"), 0);
                    continue;
                }

                Interlocked.Increment(ref _running);
                if (queue != null)
                {
                    queue.Add(due);
                }
                else
                {
                    var context = _free.TryPop(out var free) ? free : NewCopy();
                    var task = Task.Run(async () =>
                    {
                        await InvokeAsync(context, due).ConfigureAwait(false);
                        Interlocked.Decrement(ref _running);
                        _free.Push(context);
                    });
                    if (!task.IsCompleted)
                    {
                        pending.Add(task);
                    }
                }
            }

            if (k < schedule.Count)
            {
                PreciseSleep.Until(Math.Max(start + schedule.TicksOf(k), Stopwatch.GetTimestamp() + MinimumSleep));
            }
        }
    }

    private ScenarioContext NewCopy()
    {
        lock (_copies)
        {
            return Copy(_copies.Count);
        }
    }

    /// <summary>One invocation, timed from <paramref name="start"/>; never throws.</summary>
    private async ValueTask InvokeAsync(ScenarioContext context, long start)
    {
        if (context.State == null && Scenario.CopyState != null)
        {
            context.State = Scenario.CopyState(context.CopyNumber); // a copy an async open phase added: timed, as a pool growing under load is
        }

        context.InvocationNumber = Interlocked.Increment(ref _invocations) - 1;
        context.InvocationStart = start;
        context.FirstStepPending = true;
        Response response;
        try
        {
            response = await Scenario.Run(context).ConfigureAwait(false);
        }
#pragma warning disable CA1031 // A failed invocation is a result to count.
        catch (Exception e)
#pragma warning restore CA1031
        {
            response = Response.Fail(Response.ExceptionStatus, $"{e.GetType().Name}: {e.Message}");
        }

        _scenario.Record(response, Stopwatch.GetTimestamp() - start);
    }

    /// <summary>Runs <paramref name="body"/>(i) on <paramref name="count"/> new threads; the task ends when all have (awaited, not joined: a pool thread blocked in Join would starve the invocations).</summary>
    private static Task OnThreadsAsync(int count, string name, Action<int> body, ThreadPriority priority = ThreadPriority.Normal)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var remaining = count;
        Exception? failure = null;
        for (var i = 0; i < count; i++)
        {
            var index = i;
            new Thread(() =>
            {
                try
                {
                    body(index);
                }
#pragma warning disable CA1031 // Carried to the awaiting caller.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    Interlocked.CompareExchange(ref failure, e, null);
                }

                if (Interlocked.Decrement(ref remaining) == 0)
                {
                    if (failure != null)
                    {
                        done.SetException(failure);
                    }
                    else
                    {
                        done.SetResult();
                    }
                }
            })
            {
                IsBackground = true,
                Name = name,
                Priority = priority,
            }.Start();
        }

        return done.Task;
    }

    private long _lastSample;
    private long _lastScheduled;
    private long _lastProgress;

    /// <summary>Samples the meters every reporting interval until stopped; prints progress lines.</summary>
    private async Task ReportAsync(long start, CancellationToken stop)
    {
        _lastSample = start;
        _lastProgress = start;
        var interval = (long)(_options.ReportingInterval.TotalSeconds * Stopwatch.Frequency);
        try
        {
            while (true)
            {
                var wait = _lastSample + interval - Stopwatch.GetTimestamp();
                if (wait > 0)
                {
                    await Task.Delay(TimeSpan.FromSeconds(Seconds(wait)), stop).ConfigureAwait(false);
                }

                Sample(start, Stopwatch.GetTimestamp(), ref _lastSample);
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
    }

    private void Sample(long start, long now, ref long lastSample)
    {
        lock (_timeline)
        {
            var seconds = Seconds(now - lastSample);
            if (seconds <= 0)
            {
                return;
            }

            var (ok, fail) = _scenario.Drain();
            foreach (var meter in _steps.Values)
            {
                meter.Drain();
            }

            var scheduled = Interlocked.Read(ref _scheduled);
            var latency = Meter.Latency(ok);
            var point = new TimelinePoint(
                Seconds(now - start),
                ok.TotalCount,
                fail.TotalCount,
                ok.TotalCount / seconds,
                latency.P50Ms,
                latency.P99Ms,
                Volatile.Read(ref _running),
                (scheduled - _lastScheduled) / seconds);
            _timeline.Add(point);
            _lastScheduled = scheduled;
            lastSample = now;
            if (_options.Progress != null && now - _lastProgress >= _options.ProgressInterval.TotalSeconds * Stopwatch.Frequency)
            {
                _lastProgress = now;
                var left = Math.Max(0, Seconds(_phaseEnd - now)) + RemainingAfter(_phase);
                _options.Progress.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"  {_options.ProgressPrefix}{Scenario.Name} [{_phase?.Describe()}] {point.EndSeconds,5:F0} s: {point.Rps,9:N0}/s, p99 {point.P99Ms,7:F2} ms, {_scenario.FailStats(1).Count,5:N0} failed, {left:F0} s left"));
            }
        }
    }

    /// <summary>The length of the phases after <paramref name="phase"/>.</summary>
    private double RemainingAfter(LoadSimulation? phase)
    {
        var index = phase == null ? -1 : IndexOf(phase);
        return index < 0 ? 0 : Scenario.LoadSimulations.Skip(index + 1).Sum(p => p.During.TotalSeconds);
    }

    private int IndexOf(LoadSimulation phase)
    {
        for (var i = 0; i < Scenario.LoadSimulations.Count; i++)
        {
            if (ReferenceEquals(Scenario.LoadSimulations[i], phase))
            {
                return i;
            }
        }

        return -1;
    }

    private static double Seconds(long stopwatchTicks) => stopwatchTicks / (double)Stopwatch.Frequency;

    /// <summary>
    /// When each invocation of an open phase is due: invocation k when the rate integrated from the
    /// phase's start reaches k + 1 (evenly spaced at a constant rate; closer and closer on a rising ramp).
    /// </summary>
    private readonly struct Schedule
    {
        private readonly double _from;
        private readonly double _slope;

        public Schedule(LoadSimulation phase, double previousRate)
        {
            var seconds = phase.During.TotalSeconds;
            _from = phase.RateAt(0, previousRate) ?? 0;
            var to = phase.RateAt(seconds, previousRate) ?? 0;
            _slope = (to - _from) / seconds;
            Count = (long)Math.Floor((_from * seconds) + (_slope * seconds * seconds / 2) + 1e-9);
        }

        public long Count { get; }

        /// <summary>Stopwatch ticks from the phase's start to invocation <paramref name="k"/>'s due time.</summary>
        public long TicksOf(long k)
        {
            // Solve from*t + slope*t^2/2 = k + 1 for t; the first invocation is due at the first
            // arrival (one interval in), as an evenly spaced stream's would be.
            var n = k + 1.0;
            var t = Math.Abs(_slope) < 1e-12 ? n / _from : (-_from + Math.Sqrt((_from * _from) + (2 * _slope * n))) / _slope;
            return (long)(t * Stopwatch.Frequency);
        }
    }
}
