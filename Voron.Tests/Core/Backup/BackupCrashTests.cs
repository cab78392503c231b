using Voron.Backup;

namespace Voron.Tests.Core.Backup;

/// <summary>
/// A power loss at every I/O call of a backup (BK1) and of journal archiving (JA1..JA4): never a
/// half-written backup that passes as complete, never a lost acknowledged commit, and an archive
/// that replays in sequence after the store reopens and releases more files.
/// </summary>
public sealed class BackupCrashTests(ITestOutputHelper output)
{
    private const string Store = "/store";
    private const string Backups = "/backups";
    private const string Vault = "/vault";
    private const string Archive = "/vault/archive";
    private const long MaxDataFileSize = 256L << 20;

    private static StorageEnvironmentOptions Options(CrashFileSystem fileSystem, bool archive)
    {
        var options = StorageEnvironmentOptions.ForFileSystem(Store, fileSystem);
        options.BackgroundFlush = false;
        options.JournalFileSize = 8 * 1024;
        options.MaxDataFileSize = MaxDataFileSize;
        options.JournalArchiveDirectory = archive ? Archive : null;
        return options;
    }

    private static CrashFileSystem NewMachine(int seed) => new(seed, Store, Backups, Vault);

    private static void Commit(StorageEnvironment env, StoreContents model, int n)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(StoreContents.TreeName);
        var key = $"k{n % 7}";
        var value = CrashScenarios.Bytes(n, n % 4 == 0 ? 9000 : 300 + n);
        tree.Put(Encoding.UTF8.GetBytes(key), value);
        tx.Commit();
        model.Entries[key] = value;
    }

    private static StoreContents ReadStore(StorageEnvironment env)
    {
        using var read = env.BeginRead();
        return StoreContents.Read(read);
    }

    /// <summary>The store with 6 commits, then a backup to /backups/b: the calls the backup makes are [start, end).</summary>
    private static (StoreContents Model, long TxId) RunBackup(CrashFileSystem machine, out int start)
    {
        var model = new StoreContents();
        start = -1;
        using var env = StorageEnvironment.Open(Options(machine, archive: false));
        for (var n = 0; n < 6; n++)
        {
            Commit(env, model, n);
        }

        start = machine.CallCount;
        var result = env.BackupAsync(Backups + "/b").GetAwaiter().GetResult();
        return (model, result.TransactionId);
    }

    [Fact]
    public async Task A_backup_cut_at_any_call_is_either_absent_or_complete_and_restorable()
    {
        const int seed = 2411;
        int start;
        int end;
        StoreContents model;
        long txId;
        using (var clean = NewMachine(seed))
        {
            (model, txId) = RunBackup(clean, out start);
            end = clean.CallCount;
        }

        var complete = 0;
        for (var point = start; point <= end; point++)
        {
            using var machine = NewMachine(seed);
            machine.CrashAtCall = point;
            try
            {
                RunBackup(machine, out _);
            }
            catch (Exception e) when (machine.HasCrashed)
            {
                _ = e;
            }

            using var crashed = machine.AfterPowerLoss(PowerLossPolicy.Random(CrashHarness.StateSeed(seed, "backup", point)));
            using (var env = StorageEnvironment.Open(Options(crashed, archive: false)))
            {
                StoreContents.AssertEqual(model, ReadStore(env), $"the source store after a crash at call {point}");
            }

            if (!crashed.FileExists(BackupManifest.PathIn(Backups + "/b")))
            {
                var refused = await Assert.ThrowsAnyAsync<Exception>(() => StorageEnvironment.RestoreCoreAsync(crashed, Backups + "/b", "/restored", null, MaxDataFileSize,
                    CancellationToken.None));
                Assert.True(refused is CorruptionException && refused.Message.Contains("not a backup"), $"crash at call {point}: {refused}");
                continue;
            }

            complete++;
            var manifest = BackupManifest.Read(crashed, Backups + "/b"); // BK1: a manifest under its final name is valid
            Assert.Equal(txId, manifest.SnapshotTxId);
            var restored = await StorageEnvironment.RestoreCoreAsync(crashed, Backups + "/b", "/restored", null, MaxDataFileSize, CancellationToken.None);
            Assert.Equal(txId, restored.TransactionId);
            var options = StorageEnvironmentOptions.ForFileSystem("/restored", crashed);
            options.MaxDataFileSize = MaxDataFileSize;
            using var copy = StorageEnvironment.Open(options);
            copy.CheckIntegrity();
            StoreContents.AssertEqual(model, ReadStore(copy), $"the backup restored after a crash at call {point}");
        }

        output.WriteLine($"{end - start + 1} crash points, {complete} left a complete backup");
        Assert.True(complete >= 1, "the crash after the last call leaves a complete backup");
    }

    /// <summary>
    /// A store archiving its journal: a backup first (no crash), then commits and flushes that
    /// release files; the machine loses power at call <paramref name="crashAt"/> (null = none).
    /// Returns the model after each acknowledged transaction.
    /// </summary>
    private static Dictionary<long, StoreContents> RunArchiving(CrashFileSystem machine, int? crashAt, out int archivingStart)
    {
        var states = new Dictionary<long, StoreContents>();
        var model = new StoreContents();
        archivingStart = -1;
        StorageEnvironment? env = null;
        try
        {
            env = StorageEnvironment.Open(Options(machine, archive: true));
            Commit(env, model, 0);
            states[env.LastCommittedTransactionId] = model.Clone();
            env.BackupAsync(Backups + "/b").GetAwaiter().GetResult();
            archivingStart = machine.CallCount;
            machine.CrashAtCall = crashAt;
            for (var n = 1; n < 13; n++)
            {
                Commit(env, model, n);
                states[env.LastCommittedTransactionId] = model.Clone();
                if (n % 3 == 0)
                {
                    env.FlushToDataFile();
                }
            }

            env.Dispose();
        }
        catch (Exception e) when (machine.HasCrashed)
        {
            _ = e;
            try
            {
                env?.Dispose();
            }
            catch (Exception again) when (machine.HasCrashed)
            {
                _ = again;
            }
        }

        return states;
    }

    private static string Describe(CrashFileSystem fileSystem)
    {
        var text = new StringBuilder();
        foreach (var directory in new[] { Archive, Store + "/journal" })
        {
            foreach (var number in JournalFiles.List(fileSystem, directory))
            {
                using var file = fileSystem.Open(JournalFiles.PathOf(directory, number), Voron.Platform.FileOpenMode.OpenExisting);
                text.Append($"\n{directory} {number}: {file.Length} bytes;");
                var header = new byte[128];
                for (long at = 0; at + 128 <= file.Length; at += 4096)
                {
                    file.Read(at, header);
                    if (header.AsSpan().ContainsAnyExcept((byte)0))
                    {
                        text.Append($" @{at}: tx {BitConverter.ToInt64(header, 16)}");
                    }
                }
            }
        }

        return text.ToString();
    }

    [Fact]
    public async Task Archiving_cut_at_any_call_loses_no_commit_and_the_archive_stays_in_sequence()
    {
        const int seed = 2412;
        int start;
        int end;
        using (var clean = NewMachine(seed))
        {
            RunArchiving(clean, null, out start);
            end = clean.CallCount;
        }

        for (var point = start; point <= end; point++)
        {
            using var machine = NewMachine(seed);
            var states = RunArchiving(machine, point, out _);
            using var crashed = machine.AfterPowerLoss(PowerLossPolicy.Random(CrashHarness.StateSeed(seed, "archive", point)));
            var acknowledged = states.Keys.Max();
            StoreContents model;
            using (var env = StorageEnvironment.Open(Options(crashed, archive: true)))
            {
                var recovered = env.LastCommittedTransactionId;
                Assert.True(recovered == acknowledged || recovered == acknowledged + 1, $"crash at call {point}: recovered tx {recovered}, acknowledged {acknowledged}");
                model = ReadStore(env);
                if (recovered == acknowledged)
                {
                    StoreContents.AssertEqual(states[acknowledged], model, $"crash at call {point}: the recovered store");
                }

                states[recovered] = model.Clone();

                // More commits and releases: every file reaches the archive, in sequence.
                for (var n = 100; n < 104; n++)
                {
                    Commit(env, model, n);
                    states[env.LastCommittedTransactionId] = model.Clone();
                    env.FlushToDataFile();
                }
            }

            var numbers = JournalFiles.List(crashed, Archive);
            Assert.True(numbers.Count > 0 && numbers.SequenceEqual(Enumerable.Range((int)numbers[0], numbers.Count).Select(n => (long)n)),
                $"crash at call {point}: archived files {string.Join(",", numbers)}");
            RestoreResult restored;
            try
            {
                restored = await StorageEnvironment.RestoreCoreAsync(crashed, Backups + "/b", "/restored", new RestoreOptions { JournalArchiveDirectory = Archive },
                    MaxDataFileSize, CancellationToken.None);
            }
            catch (CorruptionException e)
            {
                throw new InvalidOperationException($"crash at call {point} ({machine.CrashCall}), start {start}, end {end}: {Describe(crashed)}", e);
            }
            Assert.True(restored.TransactionId >= acknowledged, $"crash at call {point}: the archive ends at {restored.TransactionId}, before acknowledged {acknowledged}");
            var options = StorageEnvironmentOptions.ForFileSystem("/restored", crashed);
            options.MaxDataFileSize = MaxDataFileSize;
            using var copy = StorageEnvironment.Open(options);
            StoreContents.AssertEqual(states[restored.TransactionId], ReadStore(copy), $"crash at call {point}: restored to tx {restored.TransactionId}");
        }

        output.WriteLine($"{end - start + 1} crash points");
    }
}
