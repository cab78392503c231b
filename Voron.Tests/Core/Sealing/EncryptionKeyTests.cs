using System.Security.Cryptography;
using Voron.Testing;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// The public key options (<see cref="StorageEnvironmentOptions.EncryptionKey"/>,
/// <see cref="StorageEnvironmentOptions.EncryptionKeyProvider"/>, their <see cref="RestoreOptions"/>
/// twins), the <see cref="EncryptionKeyException"/> they raise, and what <see cref="StorageEnvironment.Inspect"/>
/// says without the key. Every refused open leaves every file of the store byte-identical.
/// </summary>
public sealed class EncryptionKeyTests
{
    private static readonly byte[] Key = RandomNumberGenerator.GetBytes(32);

    public static TheoryData<string> RefusedCases =>
    [
        "wrong key", "no key", "key for an unencrypted store", "both key and provider", "provider throws", "provider returns null",
        "key of 16 bytes", "provider returns 33 bytes", "key of zeros",
    ];

    [Theory]
    [MemberData(nameof(RefusedCases))]
    public void An_open_with_a_key_that_does_not_fit_throws_saying_which_and_leaves_every_file_byte_identical(string refusedCase)
    {
        using var directory = new TempDirectory();
        var encrypted = refusedCase != "key for an unencrypted store";
        var env = Open(directory.Path, o => o.EncryptionKey = encrypted ? Key : null);
        Put(env, "a", "pending in the journal");
        env.CloseWithoutFlush(); // a journal to recover: an open that went on would change the data file and the header
        var before = Snapshot(directory.Path);

        Action<StorageEnvironmentOptions> configure = refusedCase switch
        {
            "wrong key" => o => o.EncryptionKey = RandomNumberGenerator.GetBytes(32),
            "no key" => _ => { },
            "key for an unencrypted store" => o => o.EncryptionKey = Key,
            "both key and provider" => o => (o.EncryptionKey, o.EncryptionKeyProvider) = (Key, _ => Key),
            "provider throws" => o => o.EncryptionKeyProvider = _ => throw new TimeoutException("the key vault did not answer"),
            "provider returns null" => o => o.EncryptionKeyProvider = _ => null!,
            "key of 16 bytes" => o => o.EncryptionKey = new byte[16],
            "provider returns 33 bytes" => o => o.EncryptionKeyProvider = _ => RandomNumberGenerator.GetBytes(33),
            _ => o => o.EncryptionKey = new byte[32],
        };
        var error = Record.Exception(() => Open(directory.Path, configure));

        switch (refusedCase)
        {
            case "wrong key":
                Assert.Equal(EncryptionKeyProblem.WrongKey, Assert.IsType<EncryptionKeyException>(error).Problem);
                break;
            case "no key":
                Assert.Equal(EncryptionKeyProblem.NoKey, Assert.IsType<EncryptionKeyException>(error).Problem);
                Assert.Contains("EncryptionKey", error.Message, StringComparison.Ordinal);
                break;
            case "key for an unencrypted store":
                Assert.Equal(EncryptionKeyProblem.KeyForUnencryptedStore, Assert.IsType<EncryptionKeyException>(error).Problem);
                break;
            case "both key and provider":
                Assert.IsType<ArgumentException>(error);
                Assert.Contains("EncryptionKey", error.Message, StringComparison.Ordinal);
                Assert.Contains("EncryptionKeyProvider", error.Message, StringComparison.Ordinal);
                break;
            case "provider throws":
                Assert.Equal("the key vault did not answer", Assert.IsType<TimeoutException>(error).Message); // the provider's own exception
                break;
            default:
                Assert.IsType<ArgumentException>(error);
                Assert.Contains(refusedCase.StartsWith("provider", StringComparison.Ordinal) ? "EncryptionKeyProvider" : "EncryptionKey", error.Message,
                    StringComparison.Ordinal);
                break;
        }

        if (error is EncryptionKeyException keyError)
        {
            Assert.Equal(directory.Path, keyError.Path);
            Assert.Contains(directory.Path, keyError.Message, StringComparison.Ordinal);
        }

        var after = Snapshot(directory.Path);
        Assert.Equal(before.Keys.Order(), after.Keys.Order());
        foreach (var (name, bytes) in before)
        {
            Assert.True(bytes.AsSpan().SequenceEqual(after[name]), $"{name} changed");
        }

        using var reopened = Open(directory.Path, o => o.EncryptionKey = encrypted ? Key : null); // the right key still opens it
        Assert.Equal("pending in the journal", Get(reopened, "a"));
    }

    [Fact]
    public void EncryptionKeyProvider_is_called_once_per_open_with_the_store_directory_and_its_array_is_left_as_it_was()
    {
        using var directory = new TempDirectory();
        var calls = new List<string>();
        var given = (byte[])Key.Clone();
        Action<StorageEnvironmentOptions> configure = o => o.EncryptionKeyProvider = d =>
        {
            calls.Add(d);
            return given;
        };

        using (var env = Open(directory.Path, configure))
        {
            Put(env, "a", "one");
            env.CloseWithoutFlush();
        }

        using (var env = Open(directory.Path, configure))
        {
            Assert.Equal("one", Get(env, "a"));
        }

        Assert.Equal([directory.Path, directory.Path], calls);
        Assert.Equal(Key, given);
        using var withKey = Open(directory.Path, o => o.EncryptionKey = Key); // the provider's key is the store's key
        Assert.Equal("one", Get(withKey, "a"));
    }

    [Fact]
    public async Task The_open_copy_of_the_provider_key_serves_backups_and_is_cleared_when_the_store_is_disposed()
    {
        using var work = new TempDirectory();
        var options = StorageEnvironmentOptions.ForDirectory(work.Combine("store"));
        options.EncryptionKeyProvider = _ => (byte[])Key.Clone();
        byte[] copy;
        using (var env = StorageEnvironment.Open(options))
        {
            Put(env, "a", "in the backup");
            copy = options.SealingKey!; // the engine's copy, which a backup reads while the store is open
            Assert.Equal(Key, copy);
            await env.BackupAsync(work.Combine("backup")); // verified with the key: the copy is opened
        }

        Assert.DoesNotContain(copy, b => b != 0);
        Assert.Null(options.SealingKey);
        await StorageEnvironment.RestoreAsync(work.Combine("backup"), work.Combine("restored"), new RestoreOptions { EncryptionKey = Key });
        using var restored = Open(work.Combine("restored"), o => o.EncryptionKey = Key);
        Assert.Equal("in the backup", Get(restored, "a"));
    }

    [Fact]
    public async Task CompactAsync_and_RekeyAsync_take_the_current_key_from_the_public_options()
    {
        using var directory = new TempDirectory();
        using (var env = Open(directory.Path, o => o.EncryptionKeyProvider = _ => Key))
        {
            Put(env, "a", "kept");
        }

        var compact = StorageEnvironmentOptions.ForDirectory(directory.Path);
        compact.EncryptionKeyProvider = _ => Key;
        await StorageEnvironment.CompactAsync(compact);
        Assert.True(StorageEnvironment.Inspect(directory.Path).IsEncrypted);

        var newKey = RandomNumberGenerator.GetBytes(32);
        var rekey = StorageEnvironmentOptions.ForDirectory(directory.Path);
        rekey.EncryptionKey = Key;
        await StorageEnvironment.RekeyAsync(rekey, newKey);

        Assert.Equal(EncryptionKeyProblem.WrongKey, Assert.Throws<EncryptionKeyException>(() => Open(directory.Path, o => o.EncryptionKey = Key)).Problem);
        using var reopened = Open(directory.Path, o => o.EncryptionKeyProvider = _ => newKey);
        Assert.Equal("kept", Get(reopened, "a"));
    }

    [Fact]
    public void Inspect_says_a_store_is_encrypted_and_with_what_without_the_key()
    {
        using var encrypted = new TempDirectory();
        using var plain = new TempDirectory();
        using (var env = Open(encrypted.Path, o => o.EncryptionKey = Key))
        {
            Put(env, "a", "b");
        }

        using (var env = Open(plain.Path, _ => { }))
        {
            Put(env, "a", "b");
        }

        var info = StorageEnvironment.Inspect(encrypted.Path);
        Assert.True(info.IsEncrypted);
        Assert.Contains(info.EncryptionAlgorithm, new[] { "AesGcm", "ChaCha20Poly1305" });
        Assert.Empty(info.Problems);
        var plainInfo = StorageEnvironment.Inspect(plain.Path);
        Assert.False(plainInfo.IsEncrypted);
        Assert.Null(plainInfo.EncryptionAlgorithm);
    }

    [Fact]
    public async Task RestoreAsync_needs_the_backup_key_and_takes_it_from_a_provider_called_with_the_destination()
    {
        using var work = new TempDirectory();
        var (store, backup, restored) = (Path.Combine(work.Path, "store"), Path.Combine(work.Path, "backup"), Path.Combine(work.Path, "restored"));
        using (var env = Open(store, o => o.EncryptionKey = Key))
        {
            Put(env, "a", "backed up");
            await env.BackupAsync(backup);
        }

        var noKey = await Assert.ThrowsAsync<EncryptionKeyException>(() => StorageEnvironment.RestoreAsync(backup, restored));
        Assert.Equal(EncryptionKeyProblem.NoKey, noKey.Problem);
        var wrong = await Assert.ThrowsAsync<EncryptionKeyException>(() =>
            StorageEnvironment.RestoreAsync(backup, restored, new RestoreOptions { EncryptionKey = RandomNumberGenerator.GetBytes(32) }));
        Assert.Equal(EncryptionKeyProblem.WrongKey, wrong.Problem);
        await Assert.ThrowsAsync<ArgumentException>(() =>
            StorageEnvironment.RestoreAsync(backup, restored, new RestoreOptions { EncryptionKey = Key, EncryptionKeyProvider = _ => Key }));
        Assert.False(Directory.Exists(restored));

        var calls = new List<string>();
        await StorageEnvironment.RestoreAsync(backup, restored, new RestoreOptions
        {
            EncryptionKeyProvider = d =>
            {
                calls.Add(d);
                return Key;
            },
        });

        Assert.Equal([restored], calls);
        Assert.True(StorageEnvironment.Inspect(restored).IsEncrypted);
        using var env2 = Open(restored, o => o.EncryptionKey = Key);
        Assert.Equal("backed up", Get(env2, "a"));
    }

    [Fact]
    public void OpenReplica_refuses_an_encryption_key_saying_replicas_of_an_encrypted_store_are_not_supported_yet()
    {
        using var work = new TempDirectory();
        var destination = new DirectoryArchiveDestination(Path.Combine(work.Path, "destination"));
        var error = Assert.Throws<ArgumentException>(() => StorageEnvironment.OpenReplica(destination, Path.Combine(work.Path, "replica"),
            new ReplicaOptions { Configure = o => o.EncryptionKey = Key }));
        Assert.Contains("not supported yet", error.Message, StringComparison.Ordinal);
    }

    private static StorageEnvironment Open(string directory, Action<StorageEnvironmentOptions> configure)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false; // the tests decide when the data file is written
        options.JournalFileSize = 256 * 1024;
        configure(options);
        return StorageEnvironment.Open(options);
    }
}
