using Voron.Flushing;
using Voron.Testing.Faults;
using Voron.Transactions;

namespace Voron.Tests.Core.Faults;

/// <summary>
/// C5 and FL6 with the crash oracle: an exception of every kind — not only I/O errors:
/// InvalidOperationException, OutOfMemoryException, ArgumentException, IOException — thrown at
/// every step of the commit pipeline (CommitStep) and of every flush (FlushStep), in explicit
/// commits and in merged batches with sync and async commit. After each:
/// <list type="number">
/// <item>the failure surfaces as the exception itself when the commit failed before its record
///   was written (Prepare, Prepared, JournalWrite), else as EnvironmentFailedException;</item>
/// <item>a store that did not fail is fully usable: it shows exactly what was acknowledged, and
///   an explicit commit and a merged operation both succeed and are durable;</item>
/// <item>a store that failed says so (IsFailed, Failure is the injected exception), serves reads
///   of the last acknowledged state and refuses writes;</item>
/// <item>after a restart and after a power loss, the crash oracle holds (StoreModel O1..O4).</item>
/// </list>
/// Each hook call of a dry run is a point; each point gets one kind (rotating), and
/// <c>VORON_SOAK</c> adds rounds with the kinds shifted.
/// </summary>
public sealed class CommitPipelineFaultTests(ITestOutputHelper output)
{
    private static readonly string[] Kinds = ["InvalidOperation", "OutOfMemory", "Argument", "IO"];

    public static TheoryData<string> Scenarios => ["single commits", "flush and journal recycling", "merged async commits", "merged sync commits"];

    private static CrashScenario Find(string name) => CrashScenarios.Enumerated.Concat(CrashScenarios.Merged).Single(s => s.Name == name);

    [Theory]
    [MemberData(nameof(Scenarios))]
    public void Any_exception_at_any_step_of_a_commit_or_flush_leaves_the_store_usable_or_failed_and_loses_nothing(string name)
    {
        var scenario = Find(name);
        var seed = TestSeed.Next(output, $"{nameof(CommitPipelineFaultTests)} '{name}'");
        var points = CountHookCalls(scenario, seed);
        var rounds = CrashBudget.Count(1, 0.00001);
        var items = Enumerable.Range(0, rounds).SelectMany(round => Enumerable.Range(0, points + 3).Select(point => (Round: round, Point: point))).ToList();
        var (states, failures) = StateRunner.Run(items, (item, found) =>
            Check(scenario, seed, item.Point, Kinds[(item.Point + item.Round) % Kinds.Length], found));

        CrashBudget.Report(output, $"'{name}': {points} hook calls, {rounds} round(s)", states, failures);
    }

    private static int CountHookCalls(CrashScenario scenario, int seed)
    {
        var calls = 0;
        using var machine = CrashHarness.Start(seed, out var model, scenario.Lazy);
        var run = new CrashRun(machine, model, o =>
        {
            scenario.Tune?.Invoke(o);
            o.CommitHook = _ => Interlocked.Increment(ref calls);
            o.FlushHook = _ => Interlocked.Increment(ref calls);
        });
        scenario.Run(run);
        run.Finish(CrashHarness.SettleTimeout);
        return calls;
    }

    private static bool IsClean(string step) => step is nameof(CommitStep.Prepare) or nameof(CommitStep.Prepared) or nameof(CommitStep.JournalWrite);

#pragma warning disable CA2201 // the engine must survive the runtime's own exception types too
    private static Exception Make(string kind, string step) => kind switch
    {
        "InvalidOperation" => new InvalidOperationException($"injected at {step}"),
        "OutOfMemory" => new OutOfMemoryException($"injected at {step}"),
        "Argument" => new ArgumentException($"injected at {step}"),
        _ => new IOException($"injected at {step}"),
    };
#pragma warning restore CA2201

    private static int Check(CrashScenario scenario, int seed, int point, string kind, List<string> failures)
    {
        using var machine = CrashHarness.Start(seed, out var model, scenario.Lazy);
        var calls = 0;
        string? injectedAt = null;
        Exception? injected = null;
        void Maybe(string step)
        {
            if (Interlocked.Increment(ref calls) - 1 == point)
            {
                injectedAt = step;
                injected = Make(kind, step);
                throw injected;
            }
        }

        var run = new CrashRun(machine, model, o =>
        {
            scenario.Tune?.Invoke(o);
            o.CommitHook = step => Maybe(step.ToString());
            o.FlushHook = step => Maybe("flush " + step);
        });
        Exception? error = null;
        try
        {
            scenario.Run(run);
        }
        catch (Exception e)
        {
            error = e is AggregateException { InnerException: { } inner } ? inner : e;
        }

        if (injected == null)
        {
            run.Finish(CrashHarness.SettleTimeout);
            return 0; // a concurrent scenario made fewer calls this time
        }

        var where = $"{scenario} point {point}: {kind} at {injectedAt}, seed {seed}";
        var clean = IsClean(injectedAt!);
        if (error is CrashCheckException)
        {
            failures.Add($"{where}: {error.Message}");
        }
        else if (error != null && clean && !ReferenceEquals(error, injected))
        {
            failures.Add($"{where}: a commit that failed before its record was written surfaced as {error.GetType().Name} ({error.Message}), not as its own exception");
        }
        else if (error != null && !clean && !(error is EnvironmentFailedException failed && ReferenceEquals(failed.InnerException, injected)))
        {
            failures.Add($"{where}: the failure surfaced as {error.GetType().Name} ({error.Message}), not as EnvironmentFailedException wrapping it");
        }

        run.Settle(CrashHarness.SettleTimeout);
        if (run.OpenEnvironment is { } environment)
        {
            if (environment.IsFailed)
            {
                if (clean)
                {
                    failures.Add($"{where}: a commit that failed before its record was written failed the store ({environment.Failure?.Message})");
                }

                if (!ReferenceEquals(environment.Failure, injected))
                {
                    failures.Add($"{where}: the store failed with {environment.Failure?.GetType().Name}, not with the injected exception");
                }

                // A commit that failed the store after its record was journaled (Journaled..Enqueued) is in
                // doubt, like the in-flight one of O2: the store may already show it (it is durable).
                var shown = environment.LastCommittedTransactionId;
                var inDoubt = shown == model.LastAcknowledged + 1 && !clean;
                FaultHarness.CheckReadableAndStopped(environment, inDoubt ? StoreModelAt(model, shown) : model, failed: true, where, failures);
            }
            else
            {
                CheckFullyUsable(run, where, failures);
            }
        }

        using var powerLost = machine.AfterPowerLoss(PowerLossPolicy.Random(CrashHarness.StateSeed(seed, scenario.Name, point)));
        run.Finish(CrashHarness.SettleTimeout);
        FaultHarness.Verify(machine, model, scenario, $"{where}, process restarted", failures);
        FaultHarness.Verify(powerLost, model, scenario, $"{where}, then power loss", failures);
        return 2;
    }

    /// <summary>The model as the failed store shows it: with the in-doubt transaction <paramref name="shown"/> counted as acknowledged.</summary>
    private static StoreModel StoreModelAt(StoreModel model, long shown)
    {
        var states = model.StatesAt(shown);
        return StoreModel.StartingAt(states[^1], shown);
    }

    /// <summary>C5: a store that did not fail shows what was acknowledged and takes explicit and merged writes.</summary>
    private static void CheckFullyUsable(CrashRun run, string where, List<string> failures)
    {
        try
        {
            var environment = run.Environment;
            CrashVerifier.CheckContents(environment, run.Model.StatesAt(environment.LastCommittedTransactionId), environment.LastCommittedTransactionId, "after the failure");
            if (environment.LastCommittedTransactionId != run.Model.LastAcknowledged)
            {
                failures.Add($"{where}: the usable store is at transaction {environment.LastCommittedTransactionId}; the last acknowledged is {run.Model.LastAcknowledged}");
            }

            run.Commit(Change.Put("usable", "explicit", [1]));
            if (!run.ExecuteAsync([Change.Put("usable", "merged", [2])]).Wait(CrashHarness.SettleTimeout))
            {
                failures.Add($"{where}: a merged operation on the usable store did not complete: a hang");
            }

            run.Settle(CrashHarness.SettleTimeout);
        }
        catch (Exception e)
        {
            failures.Add($"{where}: the store did not fail, yet it is not fully usable: {e.GetType().Name}: {e.Message}");
        }
    }
}
