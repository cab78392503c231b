namespace Voron.Tests.Core.Crash;

/// <summary>
/// LC1..LC6 (StorageEnvironment.cs) with the crash oracle: the store is disposed at a random moment
/// while merged operations run and wait, an explicit write transaction is open or committing,
/// readers are open and other writers wait for the write lock. Dispose must return (no hang);
/// every operation's task must complete (done, or ObjectDisposedException); every explicit
/// commit must succeed or throw ObjectDisposedException; and after a restart and after a power
/// loss the crash oracle holds (StoreModel O1..O4). <c>VORON_SOAK</c> raises the rounds.
/// </summary>
public sealed class DisposeWhilePendingTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Dispose_at_any_moment_with_transactions_and_operations_pending_never_hangs_and_loses_nothing_acknowledged(bool asyncCommit)
    {
        var seed = TestSeed.Next(output, $"{nameof(DisposeWhilePendingTests)} async={asyncCommit}");
        var rounds = CrashBudget.Count(40, 0.0002);
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, rounds).ToList(), (round, found) =>
            Round(CrashHarness.StateSeed(seed, nameof(DisposeWhilePendingTests), round, asyncCommit ? 1 : 0), asyncCommit, found));

        CrashBudget.Report(output, $"{rounds} disposals with work pending (async commit {asyncCommit})", states, failures);
    }

    private static int Round(int seed, bool asyncCommit, List<string> failures)
    {
        using var machine = CrashHarness.Start(seed, out var model);
        var random = new Random(seed);
        var run = new CrashRun(machine, model, o =>
        {
            o.AsyncCommit = asyncCommit;
            o.MaxBatchOperations = 4;
            o.JournalFileSize = 32 * 1024;
        });
        run.Open();
        run.Commit(Change.Put("base", "k", [1]));
        var environment = run.Environment;
        var where = $"seed {seed} (async commit {asyncCommit})";
        var unexpected = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var stop = new CancellationTokenSource();

        // Merged callers: their operations run, queue and wait (ObjectDisposedException once disposed).
        var callers = Enumerable.Range(0, 3).Select(caller => Task.Run(async () =>
        {
            for (var i = 0; !stop.IsCancellationRequested && i < 200; i++)
            {
                try
                {
                    await run.ExecuteAsync([Change.Put("m", $"c{caller}-{i:D3}", new byte[100 + i])]);
                }
                catch (ObjectDisposedException)
                {
                    return;
                }
            }
        })).ToList();

        // Explicit writers: one transaction open (and maybe committing) when Dispose comes; others waiting.
        var explicitWriters = Enumerable.Range(0, 2).Select(writer => Task.Run(() =>
        {
            for (var i = 0; !stop.IsCancellationRequested && i < 200; i++)
            {
                try
                {
                    run.Commit(Change.Put("x", $"w{writer}-{i:D3}", new byte[50]));
                }
                catch (ObjectDisposedException)
                {
                    return;
                }
                catch (Exception e)
                {
                    unexpected.Enqueue($"an explicit commit threw {e.GetType().Name}: {e.Message}");
                    return;
                }
            }
        })).ToList();

        // A writer that holds its transaction open across the disposal, and readers that stay open.
        var holder = environment.BeginWrite();
        holder.CreateTree("held").Put("k"u8, [1]);
        var readers = Enumerable.Range(0, random.Next(0, 3)).Select(_ => environment.BeginRead()).ToList();
        var release = Task.Run(() =>
        {
            Thread.Sleep(random.Next(0, 3));
            holder.Dispose(); // rolls back (before or after the disposal)
        });

        Thread.SpinWait(random.Next(0, 200_000));
        var disposing = Task.Run(environment.Dispose);
        if (!disposing.Wait(CrashHarness.SettleTimeout))
        {
            failures.Add($"{where}: Dispose did not return within {CrashHarness.SettleTimeout}: a hang ({environment.DescribeMerger()})");
            stop.Cancel();
            return 1;
        }

        stop.Cancel();
        if (!Task.WaitAll([.. callers, .. explicitWriters, release], CrashHarness.SettleTimeout))
        {
            failures.Add($"{where}: callers still running {CrashHarness.SettleTimeout} after Dispose returned: a hang");
            return 1;
        }

        foreach (var reader in readers)
        {
            try
            {
                reader.OpenTree("base");
                failures.Add($"{where}: a reader was usable after Dispose");
            }
            catch (ObjectDisposedException)
            {
                // LC6
            }

            reader.Dispose();
        }

        failures.AddRange(unexpected.Select(u => $"{where}: {u}"));
        run.Finish(CrashHarness.SettleTimeout); // a hang here is a failure too (merged operations not completed)
        using var powerLost = machine.AfterPowerLoss(PowerLossPolicy.Random(seed));
        foreach (var (disk, what) in new[] { (machine, "reopened"), (powerLost, "after a power loss") })
        {
            try
            {
                CrashVerifier.Verify(disk, model, null, reopen: false);
            }
            catch (CrashCheckException e)
            {
                failures.Add($"{where}, {what}: {e.Message}");
            }
        }

        return 2;
    }
}
