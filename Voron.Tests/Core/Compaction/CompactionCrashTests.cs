namespace Voron.Tests.Core.Compaction;

/// <summary>
/// CP2 under power loss: a crash at every I/O call of a compaction (open, copy, verify, close,
/// marker, swap), and a second crash at every call of the open that finishes the swap. After each,
/// the store opens with every acknowledged commit (the model), passes CheckIntegrity, and no
/// compaction file is left: the old store or the compacted one is in place, never a mix.
/// </summary>
public sealed class CompactionCrashTests(ITestOutputHelper output)
{
    private static readonly Action<StorageEnvironmentOptions> Tune = o => o.JournalFileSize = 8 * 1024;

    /// <summary>A small store with several journal files, overflow values, deletes and a dropped tree, closed cleanly and compacted.</summary>
    private static readonly CrashScenario Compaction = new("compaction", run =>
    {
        run.Open();
        run.Commit(Change.Put("a", "k1", CrashScenarios.Bytes(1, 10)), Change.Put("b", "k1", CrashScenarios.Bytes(2, 300)));
        run.Commit([.. Enumerable.Range(0, 40).Select(i => Change.Put("a", $"key{i:D3}", CrashScenarios.Bytes(10 + i, 90)))]);
        run.Commit(Change.Put("big", "v", CrashScenarios.Bytes(3, 20_000)), Change.Put("doomed", "x", CrashScenarios.Bytes(4, 50)));
        run.Flush();
        run.Commit([.. Enumerable.Range(0, 30).Select(i => Change.Delete("a", $"key{i:D3}"))]);
        run.Commit(Change.DropTree("doomed"), Change.Put("b", "k2", CrashScenarios.Bytes(5, 40)));

        var environment = run.Environment;
        var last = environment.LastCommittedTransactionId;
        environment.Dispose(); // the user closes the store; CrashRun.Finish later finds it closed
        run.Model.MarkDurable(last);
        StorageEnvironment.Compact(CrashRun.Options(run.FileSystem, Tune), null, default);
    }, Tune);

    private static List<string> Leftovers(CrashFileSystem fileSystem) =>
        [.. fileSystem.ListFiles("/store/compaction", "*"), .. fileSystem.ListFiles("/store/compaction/journal", "*")];

    private static void Verify(CrashFileSystem crashed, StoreModel model, string where, List<string> found)
    {
        try
        {
            CrashVerifier.Verify(crashed, model, Tune, reopen: false);
            if (Leftovers(crashed) is { Count: > 0 } left)
            {
                found.Add($"{where}: compaction files left after the open: {string.Join(", ", left)}");
            }
        }
        catch (CrashCheckException e)
        {
            found.Add($"{where}: {e.Message}");
        }
    }

    [Fact]
    public void Crash_at_every_call_of_a_compaction_leaves_a_store_with_every_commit()
    {
        var seed = TestSeed.Next(output, nameof(Crash_at_every_call_of_a_compaction_leaves_a_store_with_every_commit));
        var calls = CrashHarness.CountCalls(Compaction, seed);
        var (states, failures) = CrashHarness.CrashAtEveryPoint(Compaction, seed, Compaction.Name, calls + 1);
        CrashBudget.Report(output, $"'{Compaction.Name}': {calls} calls, {CrashHarness.PowerLossesPerPoint} power losses each", states, failures);

        // The oracle above checks content; this checks the swap happened when nothing crashed.
        using var machine = CrashHarness.RunToCrash(Compaction, seed, crashAt: null, out var model);
        using var done = machine.AfterPowerLoss(new PowerLossPolicy(DamageModel.DropAll, seed));
        Assert.Empty(Leftovers(done));
        Assert.True(done.FileExists("/store/voron.data"));
    }

    [Fact]
    public void The_swap_replaces_the_stores_newest_header_copy_last_and_makes_the_first_move_durable_before_it()
    {
        // Both header moves were made before one directory sync (what CP10 now forbids). A power loss may keep any
        // subset of unsynced renames (F2): keeping the move over the old store's newest copy and
        // dropping the other left the old store's OLDER copy the newest valid header, naming an
        // earlier transaction than the marker, and the open refused to finish the swap (CP3) over
        // a data file already replaced. Found by the point-in-time restore crash test
        // (RestoreAcrossCompactionCrashTests: a crash while the open finished the swap).
        var seed = TestSeed.Next(output, nameof(The_swap_replaces_the_stores_newest_header_copy_last_and_makes_the_first_move_durable_before_it));
        using var machine = CrashHarness.RunToCrash(Compaction, seed, crashAt: null, out _);
        var calls = machine.Calls;
        var moves = calls.Where(c => c.Kind == IoCallKind.MoveFile && c.Path.StartsWith("/store/compaction/headers.", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, moves.Count);
        var newest = calls.Last(c => c.Index < moves[0].Index && c.Kind == IoCallKind.Write && c.Path.StartsWith("/store/headers.", StringComparison.Ordinal));
        Assert.True(moves[1].Target == newest.Path, $"the last header written before the swap was {newest}; the moves were {moves[0]} then {moves[1]}");
        Assert.Contains(calls, c => c.Kind == IoCallKind.SyncDirectory && c.Path == "/store" && c.Index > moves[0].Index && c.Index < moves[1].Index);
    }

    [Fact]
    public void Crash_at_every_call_of_the_open_that_finishes_a_swap_then_open_finishes_it()
    {
        var seed = TestSeed.Next(output, nameof(Crash_at_every_call_of_the_open_that_finishes_a_swap_then_open_finishes_it));
        var calls = CrashHarness.CountCalls(Compaction, seed);
        var (states, failures) = StateRunner.Run(Enumerable.Range(0, calls + 1).ToList(), (point, found) =>
        {
            var firstLoss = PowerLossPolicy.Random(CrashHarness.StateSeed(seed, Compaction.Name, point));
            using var machine = CrashHarness.RunToCrash(Compaction, seed, point, out var model);
            using var crashed = machine.AfterPowerLoss(firstLoss);
            if (!crashed.FileExists("/store/compaction/ready"))
            {
                return 0; // the commit point was not reached: the first test covers this
            }

            var where = $"crash point {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {firstLoss}, seed {seed}";
            int openCalls;
            using (var copy = crashed.Copy(0))
            {
                StorageEnvironment.Open(CrashRun.Options(copy, Tune)).CloseWithoutFlush();
                openCalls = copy.CallCount;
            }

            var checkedStates = 0;
            for (var call = 0; call < openCalls; call++)
            {
                using var second = crashed.Copy(call);
                second.CrashAtCall = call;
                try
                {
                    StorageEnvironment.Open(CrashRun.Options(second, Tune)).CloseWithoutFlush();
                    found.Add($"{where}: the open made {openCalls} calls the first time but passed call {call} without crashing the second time");
                    continue;
                }
                catch (Exception) when (second.HasCrashed)
                {
                    // the second power loss, during the roll-forward or the recovery after it
                }

                var secondLoss = PowerLossPolicy.Random(CrashHarness.StateSeed(seed, Compaction.Name, point, call + 1));
                using var recovered = second.AfterPowerLoss(secondLoss);
                checkedStates++;
                Verify(recovered, model, $"{where}, then open crash point {call} ({second.CrashCall}), {secondLoss}", found);
            }

            return checkedStates;
        });

        CrashBudget.Report(output, "compaction, then a crash in the open that finishes the swap", states, failures);
        Assert.True(states > 0, "no crash point left a committed compaction to finish");
    }
}
