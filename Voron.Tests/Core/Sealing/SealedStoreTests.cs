using System.Text;
using Voron.Header;
using Voron.Journal;
using Voron.Sealing;
using Voron.Testing;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// A store opened with the internal SealingKey option, end to end: its header is sealed (format 4),
/// its journal records are sealed, recovery opens them with the key, and every key that does not
/// fit is refused before any file changes (SL5, SL8). Where they look for plaintext they read the
/// journal files; the pages' own tests look in the data file. The public key options are
/// EncryptionKeyTests'.
/// </summary>
public sealed class SealedStoreTests(ITestOutputHelper output)
{
    private const string TreeName = "sealed";

    private static readonly byte[] Key = SealingFixtures.Key(11);

    [Fact]
    public void A_sealed_store_recovers_every_commit_with_its_key_across_crashes_and_equals_the_model()
    {
        var seed = TestSeed.Next(output, nameof(A_sealed_store_recovers_every_commit_with_its_key_across_crashes_and_equals_the_model));
        var random = new Random(seed);
        using var directory = new TempDirectory();
        var model = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        var env = Open(directory.Path, Key);
        try
        {
            for (var t = 0; t < 150; t++)
            {
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree(TreeName);
                    for (var i = random.Next(1, 20); i > 0; i--)
                    {
                        var key = $"k{random.Next(500):D4}";
                        if (random.Next(6) == 0)
                        {
                            tree.Delete(Encoding.UTF8.GetBytes(key));
                            model.Remove(key);
                        }
                        else
                        {
                            var value = new byte[random.Next(10) == 0 ? random.Next(3000, 20_000) : random.Next(1, 300)];
                            random.NextBytes(value);
                            tree.Put(Encoding.UTF8.GetBytes(key), value);
                            model[key] = value;
                        }
                    }

                    tx.Commit();
                }

                switch (random.Next(20))
                {
                    case 0:
                        env.CloseWithoutFlush(); // the reopen replays the sealed journal with the key
                        env = Open(directory.Path, Key);
                        Compare(env, model, $"seed {seed}, after the recovery at transaction {t}");
                        break;
                    case 1:
                        env.FlushToDataFile();
                        break;
                }
            }

            env.CloseWithoutFlush();
            env = Open(directory.Path, Key);
            Compare(env, model, $"seed {seed}, after the last recovery");
            env.CheckIntegrity();
        }
        finally
        {
            env.Dispose();
        }

        var header = HeaderFile.ReadNewest(StorageEnvironmentOptions.ForDirectory(directory.Path).FileSystem, new StoreLayout(directory.Path))!.Value;
        Assert.Equal(HeaderFile.SealedFormatVersion, header.FormatVersion);
        Assert.Equal(SealFormat.Preferred, header.Seal!.Algorithm);
    }

    public static TheoryData<string> KeyCases => ["wrong key", "no key", "key for an unsealed store"];

    [Theory]
    [MemberData(nameof(KeyCases))]
    public void A_key_that_does_not_fit_is_EncryptionKeyException_saying_which_and_leaves_every_file_byte_identical(string keyCase)
    {
        using var directory = new TempDirectory();
        var sealedStore = keyCase != "key for an unsealed store";
        var env = Open(directory.Path, sealedStore ? Key : null);
        Put(env, "a", "pending in the journal");
        env.CloseWithoutFlush(); // a journal to recover: an open that went on would change the data file and the header
        var before = Snapshot(directory.Path);

        var (key, problem) = keyCase switch
        {
            "wrong key" => (SealingFixtures.Key(12), EncryptionKeyProblem.WrongKey),
            "no key" => ((byte[]?)null, EncryptionKeyProblem.NoKey),
            _ => (Key, EncryptionKeyProblem.KeyForUnencryptedStore),
        };
        var error = Assert.Throws<EncryptionKeyException>(() => Open(directory.Path, key));

        Assert.Equal(problem, error.Problem);
        Assert.Contains(directory.Path, error.Message, StringComparison.Ordinal);
        var after = Snapshot(directory.Path);
        Assert.Equal(before.Keys.Order(), after.Keys.Order());
        foreach (var (name, bytes) in before)
        {
            Assert.True(bytes.AsSpan().SequenceEqual(after[name]), $"{name} changed");
        }

        using var reopened = Open(directory.Path, sealedStore ? Key : null); // the right configuration still opens it
        Assert.Equal("pending in the journal", Get(reopened, "a"));
    }

    [Fact]
    public void A_journal_payload_byte_changed_on_disk_with_its_trailers_recomputed_is_CorruptionException_naming_file_and_offset()
    {
        using var directory = new TempDirectory();
        var env = Open(directory.Path, Key);
        Put(env, "a", new string('x', 2000));
        Put(env, "b", new string('y', 2000));
        env.CloseWithoutFlush();
        var layout = new StoreLayout(directory.Path);
        var header = HeaderFile.ReadNewest(StorageEnvironmentOptions.ForDirectory(directory.Path).FileSystem, layout)!.Value;
        var path = JournalFiles.PathOf(layout.JournalDirectory, header.JournalFile);
        var offset = header.JournalOffset;

        // Someone without the key flips a payload bit and recomputes the header checksum and trailers, which need no key.
        RewriteRecord(path, header.JournalFile, offset, header.StoreId, body => body[JournalRecord.HeaderSize + 40] ^= 0x04);

        var error = Assert.Throws<CorruptionException>(() => Open(directory.Path, Key));

        Assert.Equal(path, error.File);
        Assert.Equal(offset, error.Offset);
        Assert.Contains("SL3", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Marker_strings_written_as_values_are_in_no_journal_file_of_a_sealed_store()
    {
        // Data-file pages are not sealed yet (the next slice seals them): only the journal is scanned.
        var markers = Enumerable.Range(0, 20).Select(i => $"PLAINTEXT-MARKER-{i:D2}-0x5EA1").ToArray();
        using var sealedDirectory = new TempDirectory();
        using var plainDirectory = new TempDirectory();
        foreach (var (path, key) in new[] { (sealedDirectory.Path, Key), (plainDirectory.Path, (byte[]?)null) })
        {
            using var env = Open(path, key, compress: false); // uncompressed, so the plaintext control shows the scan finds markers
            foreach (var marker in markers)
            {
                Put(env, marker, marker);
            }

            env.CloseWithoutFlush();
        }

        Assert.NotEmpty(Found(plainDirectory.Path, markers)); // the scan finds them where they are plaintext
        Assert.Empty(Found(sealedDirectory.Path, markers));
    }

    [Fact]
    public async Task A_backup_of_a_sealed_store_is_sealed_and_restores_with_the_key_only()
    {
        using var directory = new TempDirectory();
        var store = Path.Combine(directory.Path, "store");
        var backup = Path.Combine(directory.Path, "backup");
        var restored = Path.Combine(directory.Path, "restored");
        using (var env = Open(store, Key))
        {
            for (var i = 0; i < 50; i++)
            {
                Put(env, $"k{i}", $"value {i}");
            }

            await env.BackupAsync(backup);
        }

        var backupHeader = HeaderFile.ReadNewest(StorageEnvironmentOptions.ForDirectory(backup).FileSystem, new StoreLayout(backup))!.Value;
        Assert.Equal(HeaderFile.SealedFormatVersion, backupHeader.FormatVersion);

        var refused = await Assert.ThrowsAsync<EncryptionKeyException>(() => StorageEnvironment.RestoreAsync(backup, restored));
        Assert.Equal(EncryptionKeyProblem.NoKey, refused.Problem);
        Assert.False(Directory.Exists(restored));

        await StorageEnvironment.RestoreAsync(backup, restored, new RestoreOptions { SealingKey = Key });
        Assert.Throws<EncryptionKeyException>(() => Open(restored, null));
        using (var env = Open(restored, Key))
        {
            for (var i = 0; i < 50; i++)
            {
                Assert.Equal($"value {i}", Get(env, $"k{i}"));
            }

            Put(env, "after", "the restored store commits sealed records");
            env.CloseWithoutFlush();
        }

        using var reopened = Open(restored, Key);
        Assert.Equal("the restored store commits sealed records", Get(reopened, "after"));
    }

    [Fact]
    public async Task A_point_in_time_restore_replays_the_sealed_archive_with_the_key()
    {
        using var directory = new TempDirectory();
        var store = Path.Combine(directory.Path, "store");
        var archive = Path.Combine(directory.Path, "archive");
        var backup = Path.Combine(directory.Path, "backup");
        long target;
        using (var env = Open(store, Key, archive: archive))
        {
            Put(env, "before", "the backup");
            await env.BackupAsync(backup);
            for (var i = 0; i < 60; i++)
            {
                Put(env, $"k{i:D2}", new string((char)('a' + (i % 26)), 3000)); // several 64 KiB journal files, archived as they are released
                if (i % 10 == 9)
                {
                    env.FlushToDataFile();
                }
            }

            using var read = env.BeginRead();
            target = read.Id - 20;
        }

        Assert.NotEmpty(Directory.GetFiles(archive, "*.journal"));
        var restored = Path.Combine(directory.Path, "restored");
        var result = await StorageEnvironment.RestoreAsync(backup, restored,
            new RestoreOptions { JournalArchiveDirectory = archive, ToTransactionId = target, SealingKey = Key });

        Assert.Equal(target, result.TransactionId);
        using var opened = Open(restored, Key);
        Assert.Equal("the backup", Get(opened, "before"));
        Assert.Equal(new string((char)('a' + (39 % 26)), 3000), Get(opened, "k39"));
        Assert.Null(Get(opened, "k40"));
    }

    [Fact]
    public void Inspect_reads_a_sealed_store_without_the_key_and_says_it_is_sealed()
    {
        using var directory = new TempDirectory();
        var env = Open(directory.Path, Key);
        Put(env, "a", "1");
        Put(env, "b", "2");
        env.CloseWithoutFlush();

        var info = StorageEnvironment.Inspect(directory.Path);

        Assert.Equal(HeaderFile.SealedFormatVersion, info.FormatVersion);
        Assert.Equal(SealFormat.Preferred.ToString(), info.SealAlgorithm);
        Assert.Equal(info.LastSyncedTransactionId + 2, info.LastTransactionId);
        Assert.Empty(info.Problems);
    }

    private static StorageEnvironment Open(string directory, byte[]? key, bool compress = true, string? archive = null)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false; // the tests decide when the data file is written
        options.JournalFileSize = archive is null ? 256 * 1024 : 64 * 1024;
        options.JournalArchiveDirectory = archive;
        options.JournalCompression = compress;
        options.SealingKey = key;
        return StorageEnvironment.Open(options);
    }

    private static void Compare(StorageEnvironment env, Dictionary<string, byte[]> model, string where)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree(TreeName);
        Assert.True((tree?.Count ?? 0) == model.Count, $"{where}: {tree?.Count ?? 0} keys, the model has {model.Count}");
        foreach (var (key, value) in model)
        {
            Assert.True(tree!.TryGet(Encoding.UTF8.GetBytes(key), out var actual) && actual.SequenceEqual(value), $"{where}: key {key} differs");
        }
    }

    private static List<string> Found(string directory, string[] markers)
    {
        var journal = new StoreLayout(directory).JournalDirectory;
        var found = new List<string>();
        foreach (var file in Directory.GetFiles(journal))
        {
            var bytes = File.ReadAllBytes(file);
            found.AddRange(markers.Where(m => bytes.AsSpan().IndexOf(Encoding.UTF8.GetBytes(m)) >= 0).Select(m => $"{m} in {file}"));
        }

        return found;
    }

    /// <summary>Unframes the record at <paramref name="offset"/>, edits its body, and stamps its header checksum and trailers again (none needs the key).</summary>
    private static void RewriteRecord(string path, long fileNumber, long offset, ulong storeId, Action<Span<byte>> edit)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        var sector = new byte[JournalRecord.SectorSize];
        file.Position = offset;
        file.ReadExactly(sector);
        Assert.True(JournalRecordHeader.TryRead(sector, new RecordBinding(storeId, fileNumber), out var header));
        var bytes = new byte[header.RecordSize];
        file.Position = offset;
        file.ReadExactly(bytes);
        var bodyLength = (int)(bytes.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize);
        JournalRecord.Unframe(bytes, bodyLength);
        edit(bytes.AsSpan(0, bodyLength));
        Voron.Tests.Core.Journal.JournalHarness.Restamp(bytes, fileNumber, bodyLength, storeId);
        file.Position = offset;
        file.Write(bytes);
    }
}
