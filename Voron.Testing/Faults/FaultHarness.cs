using Voron.Testing.Crash;

namespace Voron.Testing.Faults;

/// <summary>
/// Runs a crash scenario with one injected I/O failure (and, for a full disk that stays full,
/// every later growth failing too) and checks what CT8 and CT9 require:
/// <list type="number">
/// <item>the failure surfaces as a clear exception: <see cref="EnvironmentFailedException"/>,
///   <see cref="DiskFullException"/> or another <see cref="IOException"/> — nothing else;</item>
/// <item>the open store stays readable and shows exactly the last acknowledged state;</item>
/// <item>fail-stop: once a failure reached the store, it acknowledges nothing more (an explicit
///   commit and a merged operation both fail with EnvironmentFailedException);</item>
/// <item>after a restart of the process (the OS keeps every write) and, separately, after a
///   power loss, the store recovers every acknowledged commit, nothing partial, and accepts
///   writes (the crash oracle, StoreModel.cs).</item>
/// </list>
/// </summary>
internal static class FaultHarness
{
    /// <summary>Checks one failure at call <paramref name="faultAt"/>; returns the crash states checked.</summary>
    public static int Check(CrashScenario scenario, int seed, int faultAt, Func<IoCall, IoFault> choose, bool diskStaysFull, List<string> failures)
    {
        using var machine = CrashHarness.Start(seed, out var model);
        IoCall? injected = null;
        machine.Faults = call =>
        {
            if (call.Index == faultAt)
            {
                injected = call;
                return choose(call);
            }

            return diskStaysFull && injected != null && call.Kind is IoCallKind.Write or IoCallKind.Preallocate or IoCallKind.SetLength or IoCallKind.CreateFile
                ? IoFault.DiskFull
                : IoFault.None;
        };

        var run = new CrashRun(machine, model, scenario.Tune);
        Exception? error = null;
        try
        {
            scenario.Run(run);
        }
        catch (Exception e)
        {
            error = e is AggregateException { InnerException: { } inner } ? inner : e;
        }

        var where = $"{scenario} fault at call {faultAt} ({(injected is { } i ? $"{i}: {choose(i)}" : "not reached")}){(diskStaysFull ? ", disk stays full" : "")}, seed {seed}";
        if (injected == null)
        {
            run.Finish(CrashHarness.SettleTimeout);
            return 0; // a concurrent scenario made fewer calls this time
        }

        if (error != null && error is not (EnvironmentFailedException or IOException))
        {
            failures.Add($"{where}: the failure surfaced as {error.GetType().Name}, not a clear I/O error: {error.Message}");
        }
        else if (error is EnvironmentFailedException or IOException && string.IsNullOrWhiteSpace(error.Message))
        {
            failures.Add($"{where}: the {error.GetType().Name} has no message");
        }

        run.Settle(CrashHarness.SettleTimeout);
        if (run.OpenEnvironment is { } environment)
        {
            CheckReadableAndStopped(environment, model, error != null, where, failures);
        }

        machine.Faults = null; // space returns, the disk works again
        using var powerLost = machine.AfterPowerLoss(PowerLossPolicy.Random(CrashHarness.StateSeed(seed, scenario.Name, faultAt)));
        run.Finish(CrashHarness.SettleTimeout);
        Verify(machine, model, scenario, $"{where}, process restarted", failures);
        Verify(powerLost, model, scenario, $"{where}, then power loss", failures);
        return 2;
    }

    internal static void CheckReadableAndStopped(StorageEnvironment environment, StoreModel model, bool failed, string where, List<string> failures)
    {
        try
        {
            var committed = environment.LastCommittedTransactionId;
            if (committed != model.LastAcknowledged)
            {
                failures.Add($"{where}: the store shows transaction {committed} as committed; the last acknowledged is {model.LastAcknowledged}");
            }

            CrashVerifier.CheckContents(environment, model.StatesAt(committed), committed, "after the failure, before reopening");
        }
        catch (Exception e) when (e is CrashCheckException or CorruptionException or InvalidOperationException)
        {
            failures.Add($"{where}: the store is not readable after the failure: {e.Message}");
            return;
        }

        if (!failed)
        {
            return;
        }

        try
        {
            using var write = environment.BeginWrite();
            write.CreateTree("after-failure").Put([1], [1]);
            write.Commit();
            failures.Add($"{where}: fail-stop broken: an explicit commit was acknowledged after the failure");
        }
        catch (EnvironmentFailedException)
        {
            // fail-stop
        }
        catch (Exception e)
        {
            failures.Add($"{where}: a commit after the failure threw {e.GetType().Name}, not EnvironmentFailedException: {e.Message}");
        }

        try
        {
            var merged = environment.ExecuteAsync(tx => tx.CreateTree("after-failure").Put([2], [2]));
            if (merged.Wait(CrashHarness.SettleTimeout))
            {
                failures.Add($"{where}: fail-stop broken: a merged operation was acknowledged after the failure");
            }
            else
            {
                failures.Add($"{where}: a merged operation after the failure neither completed nor failed: a hang");
            }
        }
        catch (Exception e) when (e is EnvironmentFailedException || e.InnerException is EnvironmentFailedException)
        {
            // fail-stop
        }
        catch (Exception e)
        {
            failures.Add($"{where}: a merged operation after the failure threw {e.GetType().Name}, not EnvironmentFailedException: {e.Message}");
        }
    }

    internal static void Verify(CrashFileSystem fileSystem, StoreModel model, CrashScenario scenario, string where, List<string> failures)
    {
        try
        {
            CrashVerifier.Verify(fileSystem, model, scenario.Tune, reopen: false);
        }
        catch (CrashCheckException e)
        {
            failures.Add($"{where}: {e.Message}");
        }
    }
}
