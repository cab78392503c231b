using System.Text;
using Voron.Sealing;
using Voron.Testing;
using Voron.Testing.Crash;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// StorageEnvironment.RekeyAsync and compaction of a sealed store: the copy is sealed under the
/// new key (a new salt), swapped in crash-safely; afterwards only the new key opens the store.
/// </summary>
public sealed class RekeyTests(ITestOutputHelper output)
{
    private const string TreeName = "rekey";

    private static readonly byte[] OldKey = SealingFixtures.Key(41);
    private static readonly byte[] NewKey = SealingFixtures.Key(42);

    [Fact]
    public async Task Rekey_writes_the_store_under_the_new_key_and_the_old_key_no_longer_opens_it()
    {
        using var directory = new TempDirectory();
        using (var env = StorageEnvironment.Open(Options(directory.Path, OldKey)))
        {
            Fill(env);
        }

        var result = await StorageEnvironment.RekeyAsync(Options(directory.Path, OldKey), NewKey);

        Assert.True(result.TransactionId > 0);
        var refused = Assert.Throws<EncryptionKeyException>(() => StorageEnvironment.Open(Options(directory.Path, OldKey)));
        Assert.Equal(EncryptionKeyProblem.WrongKey, refused.Problem);
        using var reopened = StorageEnvironment.Open(Options(directory.Path, NewKey));
        Check(reopened);
        reopened.CheckIntegrity();
        Assert.Empty(Markers(directory.Path));
    }

    [Fact]
    public async Task Rekey_of_a_store_that_is_not_sealed_encrypts_it()
    {
        using var directory = new TempDirectory();
        using (var env = StorageEnvironment.Open(Options(directory.Path, null)))
        {
            Fill(env);
        }

        Assert.NotEmpty(Markers(directory.Path)); // the control: plaintext before

        await StorageEnvironment.RekeyAsync(Options(directory.Path, null), NewKey);

        Assert.Empty(Markers(directory.Path));
        Assert.Throws<EncryptionKeyException>(() => StorageEnvironment.Open(Options(directory.Path, null)));
        using var reopened = StorageEnvironment.Open(Options(directory.Path, NewKey));
        Check(reopened);
    }

    [Fact]
    public async Task Compacting_a_sealed_store_keeps_it_sealed_under_its_key()
    {
        using var directory = new TempDirectory();
        using (var env = StorageEnvironment.Open(Options(directory.Path, OldKey)))
        {
            Fill(env);
        }

        await StorageEnvironment.CompactAsync(Options(directory.Path, OldKey));

        Assert.Empty(Markers(directory.Path));
        using var reopened = StorageEnvironment.Open(Options(directory.Path, OldKey));
        Check(reopened);
        reopened.CheckIntegrity();
    }

    [Fact]
    public async Task A_key_of_the_wrong_size_is_refused_before_anything_is_read()
    {
        using var directory = new TempDirectory();
        await Assert.ThrowsAsync<ArgumentException>(() => StorageEnvironment.RekeyAsync(Options(directory.Path, OldKey), new byte[16]));
        Assert.False(File.Exists(Path.Combine(directory.Path, "voron.data")));
    }

    private static readonly CrashScenario Rekey = new("rekey", run =>
    {
        run.Open();
        run.Commit(Change.Put("a", "k1", CrashScenarios.Bytes(1, 10)), Change.Put("b", "k1", CrashScenarios.Bytes(2, 300)));
        run.Commit([.. Enumerable.Range(0, 30).Select(i => Change.Put("a", $"key{i:D3}", CrashScenarios.Bytes(10 + i, 90)))]);
        run.Commit(Change.Put("big", "v", CrashScenarios.Bytes(3, 20_000)));
        var environment = run.Environment;
        var last = environment.LastCommittedTransactionId;
        environment.Dispose();
        run.Model.MarkDurable(last);
        StorageEnvironment.Compact(CrashRun.Options(run.FileSystem, TuneOld), null, default, NewKey.ToArray());
    }, TuneOld);

    private static void TuneOld(StorageEnvironmentOptions o)
    {
        o.JournalFileSize = 8 * 1024;
        o.SealingKey = OldKey;
    }

    private static void TuneNew(StorageEnvironmentOptions o)
    {
        o.JournalFileSize = 8 * 1024;
        o.SealingKey = NewKey;
    }

    [Fact]
    public void A_crash_at_every_call_of_a_rekey_leaves_the_store_whole_under_exactly_one_of_the_keys()
    {
        var seed = TestSeed.Next(output, nameof(A_crash_at_every_call_of_a_rekey_leaves_the_store_whole_under_exactly_one_of_the_keys));
        int calls;
        using (var whole = CrashHarness.RunToCrash(Rekey, seed, crashAt: null, out _))
        {
            calls = whole.CallCount; // not CountCalls: it verifies the finished run under the scenario's (old) key
        }

        var failures = new List<string>();
        var underNew = 0;
        for (var point = 0; point <= calls; point++)
        {
            using var machine = CrashHarness.RunToCrash(Rekey, seed, point, out var model);
            var policy = new PowerLossPolicy(PowerLossPolicy.AllModels[point % PowerLossPolicy.AllModels.Count], CrashHarness.StateSeed(seed, "rekey", point));
            using var crashed = machine.AfterPowerLoss(policy);
            try
            {
                // As a user would: the new key first; WrongKey means the swap was not committed.
                CrashVerifier.Verify(crashed, model, TuneNew, reopen: false);
                underNew++;
            }
            catch (CrashCheckException e) when (e.InnerException is EncryptionKeyException { Problem: EncryptionKeyProblem.WrongKey })
            {
                try
                {
                    CrashVerifier.Verify(crashed, model, TuneOld, reopen: false);
                }
                catch (CrashCheckException again)
                {
                    failures.Add($"point {point} ({machine.CrashCall}), {policy}: under neither key: {again.Message}");
                }
            }
            catch (CrashCheckException e)
            {
                failures.Add($"point {point} ({machine.CrashCall}), {policy}: {e.Message}");
            }
        }

        output.WriteLine($"{calls} calls; the store was under the new key after {underNew} of the crashes (seed {seed})");
        Assert.True(failures.Count == 0, string.Join(Environment.NewLine, failures.Take(10)));
        Assert.True(underNew > 0 && underNew <= calls, $"some crashes must fall after the commit point and some before it ({underNew} of {calls + 1} under the new key)");
    }

    private static StorageEnvironmentOptions Options(string directory, byte[]? key)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalCompression = false;
        options.SealingKey = key;
        return options;
    }

    private static void Fill(StorageEnvironment env)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree(TreeName);
        for (var i = 0; i < 300; i++)
        {
            tree.Put(Encoding.UTF8.GetBytes($"REKEY-MARKER-{i:D3}"), Encoding.UTF8.GetBytes($"REKEY-VALUE-{i:D3}-" + new string('v', i % 7 == 0 ? 9000 : 40)));
        }

        tx.Commit();
    }

    private static void Check(StorageEnvironment env)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree(TreeName)!;
        Assert.Equal(300, tree.Count);
        for (var i = 0; i < 300; i++)
        {
            Assert.True(tree.TryGet(Encoding.UTF8.GetBytes($"REKEY-MARKER-{i:D3}"), out var value));
            Assert.StartsWith($"REKEY-VALUE-{i:D3}-", Encoding.UTF8.GetString(value), StringComparison.Ordinal);
        }
    }

    private static List<string> Markers(string directory) =>
        Directory.GetFiles(directory, "*", SearchOption.AllDirectories)
            .Where(f => Path.GetFileName(f) != "voron.lock") // locked while the store is open; it holds no data
            .Where(f => File.ReadAllBytes(f).AsSpan().IndexOf("REKEY-MARKER-"u8) >= 0 || File.ReadAllBytes(f).AsSpan().IndexOf("REKEY-VALUE-"u8) >= 0)
            .ToList();
}
