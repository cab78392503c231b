using Voron.Tests.Core.Backup;

namespace Voron.Tests.Core.Crash;

/// <summary>
/// JA9 under power loss: a store that archives its journal is backed up, written to, closed and
/// compacted, and the machine loses power at every I/O call of the compaction, then (when the
/// compaction had committed) again at calls of the open that finishes its swap. After each, the
/// store opens, commits and releases more, and the backup plus the archive restores to every
/// acknowledged commit up to the compaction — and as far as the store went when the compaction
/// did not happen — while a target past a compaction that did is refused naming it.
/// </summary>
public sealed class RestoreAcrossCompactionCrashTests(ITestOutputHelper output)
{
    private const string Store = "/store";
    private const string Backups = "/backups";
    private const string Vault = "/vault";
    private const string Archive = "/vault/archive";
    private const long MaxDataFileSize = 256L << 20;

    /// <summary>Every <see cref="SecondCrashStride"/>-th call of the open that finishes a swap gets a second crash.</summary>
    private const int SecondCrashStride = 5;

    private static StorageEnvironmentOptions Options(CrashFileSystem fileSystem)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(Store, fileSystem);
        options.BackgroundFlush = false;
        options.JournalFileSize = 8 * 1024;
        options.MaxDataFileSize = MaxDataFileSize;
        options.JournalArchiveDirectory = Archive;
        return options;
    }

    private static CrashFileSystem NewMachine(int seed) => new(seed, Store, Backups, Vault);

    private static void Commit(StorageEnvironment env, StoreContents model, int n)
    {
        using var tx = env.BeginWrite();
        var key = $"k{n % 7}";
        var value = CrashScenarios.Bytes(n, n % 3 == 0 ? 9000 : 300 + n);
        tx.CreateTree(StoreContents.TreeName).Put(Encoding.UTF8.GetBytes(key), value);
        tx.Commit();
        model.Entries[key] = value;
    }

    /// <summary>Before the compaction, without a crash: a commit, the backup, more commits and releases, a clean close.</summary>
    private static Dictionary<long, StoreContents> Prepare(CrashFileSystem machine, out long last)
    {
        var states = new Dictionary<long, StoreContents>();
        var model = new StoreContents();
        using var env = StorageEnvironment.Open(Options(machine));
        Commit(env, model, 0);
        states[env.LastCommittedTransactionId] = model.Clone();
        env.BackupAsync(Backups + "/b").GetAwaiter().GetResult();
        for (var n = 1; n < 10; n++)
        {
            Commit(env, model, n);
            states[env.LastCommittedTransactionId] = model.Clone();
            if (n % 3 == 0)
            {
                env.FlushToDataFile();
            }
        }

        last = env.LastCommittedTransactionId;
        return states;
    }

    private static void Compact(CrashFileSystem machine)
    {
        try
        {
            StorageEnvironment.Compact(Options(machine), null, default);
        }
        catch (Exception e) when (machine.HasCrashed)
        {
            _ = e;
        }
    }

    private static RestoreResult Restore(CrashFileSystem fileSystem, string destination, RestoreOptions options) =>
        StorageEnvironment.RestoreCoreAsync(fileSystem, Backups + "/b", destination, options, MaxDataFileSize, CancellationToken.None).GetAwaiter().GetResult();

    private static StoreContents Read(CrashFileSystem fileSystem, string directory, long expectedTxId, string where)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(directory, fileSystem);
        options.MaxDataFileSize = MaxDataFileSize;
        using var env = StorageEnvironment.Open(options);
        Assert.True(expectedTxId == env.LastCommittedTransactionId, $"{where}: '{directory}' holds tx {env.LastCommittedTransactionId}, expected {expectedTxId}");
        env.CheckIntegrity();
        using var read = env.BeginRead();
        return StoreContents.Read(read);
    }

    /// <summary>Opens the crashed machine's store, writes and releases more, and restores the backup: every check of the class comment.</summary>
    private static void Check(CrashFileSystem crashed, Dictionary<long, StoreContents> before, long last, string where)
    {
        var states = new Dictionary<long, StoreContents>(before);
        bool compacted;
        using (var env = StorageEnvironment.Open(Options(crashed)))
        {
            Assert.True(env.LastCommittedTransactionId >= last, $"{where}: the store holds tx {env.LastCommittedTransactionId}, acknowledged {last}");
            using (var read = env.BeginRead())
            {
                StoreContents.AssertEqual(before[last], StoreContents.Read(read), $"{where}: the store after the crash");
            }

            compacted = ArchivedCompaction.List(crashed, Archive).Count > 0;
            Assert.True(compacted == (env.StoreId != StoredStoreIdOfBackupSource(crashed)), $"{where}: a compaction note exists iff the store was compacted");
            var model = before[last].Clone();
            for (var n = 100; n < 106; n++)
            {
                Commit(env, model, n);
                if (!compacted)
                {
                    states[env.LastCommittedTransactionId] = model.Clone(); // the same store: its archive goes on
                }

                env.FlushToDataFile();
            }
        }

        var numbers = JournalFiles.List(crashed, Archive);
        Assert.True(numbers.SequenceEqual(Enumerable.Range((int)numbers[0], numbers.Count).Select(n => (long)n)),
            $"{where}: archived files {string.Join(",", numbers)} are not consecutive");

        var full = Restore(crashed, "/restored-full", new RestoreOptions { JournalArchiveDirectory = Archive });
        Assert.True(compacted ? full.TransactionId == last : full.TransactionId >= last,
            $"{where}: restored without a target to tx {full.TransactionId}; the compaction (if any) came after {last}");
        StoreContents.AssertEqual(states[full.TransactionId], Read(crashed, "/restored-full", full.TransactionId, where), $"{where}: restored to tx {full.TransactionId}");

        var atLast = Restore(crashed, "/restored-last", new RestoreOptions { JournalArchiveDirectory = Archive, ToTransactionId = last });
        StoreContents.AssertEqual(states[last], Read(crashed, "/restored-last", atLast.TransactionId, where), $"{where}: restored to tx {last}");

        if (compacted)
        {
            var refused = Assert.Throws<InvalidOperationException>(() =>
                Restore(crashed, "/restored-past", new RestoreOptions { JournalArchiveDirectory = Archive, ToTransactionId = last + 1 }));
            Assert.Contains($"compacted after transaction {last}", refused.Message, StringComparison.Ordinal);
        }
    }

    /// <summary>The id of the store the backup was taken from (its manifest's SourceStoreId).</summary>
    private static ulong StoredStoreIdOfBackupSource(CrashFileSystem fileSystem) => Voron.Backup.BackupManifest.Read(fileSystem, Backups + "/b").SourceStoreId;

    [Fact]
    public void A_crash_at_every_call_of_a_compaction_leaves_an_archive_that_restores_the_earlier_backup_up_to_it()
    {
        var seed = TestSeed.Next(output, nameof(A_crash_at_every_call_of_a_compaction_leaves_an_archive_that_restores_the_earlier_backup_up_to_it));
        int start;
        int end;
        using (var clean = NewMachine(seed))
        {
            Prepare(clean, out _);
            start = clean.CallCount;
            Compact(clean);
            end = clean.CallCount;
        }

        var secondCrashes = 0;
        var (states, failures) = StateRunner.Run(Enumerable.Range(start, end - start + 1).ToList(), (point, found) =>
        {
            using var machine = NewMachine(seed);
            var before = Prepare(machine, out var last);
            machine.CrashAtCall = point;
            Compact(machine);
            var loss = PowerLossPolicy.Random(CrashHarness.StateSeed(seed, "restore across compaction", point));
            using var crashed = machine.AfterPowerLoss(loss);
            var where = $"crash at call {point} ({machine.CrashCall?.ToString() ?? "after the last call"}), {loss}, seed {seed}";
            var checkedStates = 0;
            try
            {
                using (var first = crashed.Copy(0))
                {
                    Check(first, before, last, where);
                }

                checkedStates++;
            }
            catch (Exception e)
            {
                found.Add($"{where}: {e}");
                return checkedStates;
            }

            if (!crashed.FileExists(Store + "/compaction/ready"))
            {
                return checkedStates;
            }

            // A second power loss in the open that finishes the swap (archives, note, deletions, moves).
            int openCalls;
            using (var copy = crashed.Copy(0))
            {
                StorageEnvironment.Open(Options(copy)).CloseWithoutFlush();
                openCalls = copy.CallCount;
            }

            for (var call = point % SecondCrashStride; call < openCalls; call += SecondCrashStride)
            {
                using var second = crashed.Copy(call);
                second.CrashAtCall = call;
                try
                {
                    StorageEnvironment.Open(Options(second)).CloseWithoutFlush();
                }
                catch (Exception e) when (second.HasCrashed)
                {
                    _ = e;
                }

                var secondLoss = PowerLossPolicy.Random(CrashHarness.StateSeed(seed, "restore across compaction", point, call + 1));
                using var recovered = second.AfterPowerLoss(secondLoss);
                var again = $"{where}, then open crash at call {call} ({second.CrashCall?.ToString() ?? "none"}), {secondLoss}";
                try
                {
                    Check(recovered, before, last, again);
                    checkedStates++;
                    Interlocked.Increment(ref secondCrashes);
                }
                catch (Exception e)
                {
                    found.Add($"{again}: {e}");
                }
            }

            return checkedStates;
        });

        CrashBudget.Report(output, $"restore across compaction: {end - start + 1} crash points in the compaction, {secondCrashes} second crashes", states, failures);
        Assert.True(secondCrashes > 0, "no crash point left a committed compaction for the open to finish");
    }
}
