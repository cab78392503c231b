using System.Text;
using Voron.Testing;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// Tamper tests of a sealed store's copies: a flipped bit in a backup's data file, or in an
/// archived journal file, is found by the restore (SL7, SL8), never applied.
/// </summary>
public sealed class SealedCopyTamperTests
{
    private static readonly byte[] Key = SealingFixtures.Key(61);

    [Fact]
    public async Task A_flipped_bit_in_a_sealed_backups_data_file_fails_the_restore_or_the_first_read_of_that_page()
    {
        using var directory = new TempDirectory();
        var store = Path.Combine(directory.Path, "store");
        var backup = Path.Combine(directory.Path, "backup");
        using (var env = StorageEnvironment.Open(Options(store)))
        {
            Fill(env, 0, 300);
            env.FlushToDataFile();
            await env.BackupAsync(backup, new BackupOptions { Verify = false });
        }

        var dataFile = Path.Combine(backup, "voron.data");
        var data = File.ReadAllBytes(dataFile);
        var victim = Enumerable.Range(1, data.Length / Constants.PageSize - 1)
            .Last(p => Voron.Paging.PageHeader.GetPageNumber(data.AsSpan(p * Constants.PageSize)) == p &&
                       Voron.Paging.PageHeader.GetFlags(data.AsSpan(p * Constants.PageSize)) == Voron.Paging.PageFlags.Leaf);
        data[(victim * Constants.PageSize) + 2000] ^= 0x01;
        File.WriteAllBytes(dataFile, data);

        var restored = Path.Combine(directory.Path, "restored");
        var error = await Assert.ThrowsAnyAsync<Exception>(async () =>
        {
            await StorageEnvironment.RestoreAsync(backup, restored, new RestoreOptions { EncryptionKey = Key });
            using var env = StorageEnvironment.Open(Options(restored));
            env.CheckIntegrity();
        });
        var corruption = Assert.IsType<CorruptionException>(error is CorruptionException ? error : error.InnerException);
        Assert.Contains($"page {victim}", corruption.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_flipped_bit_in_an_archived_sealed_journal_file_fails_the_point_in_time_restore()
    {
        using var directory = new TempDirectory();
        var store = Path.Combine(directory.Path, "store");
        var archive = Path.Combine(directory.Path, "archive");
        var backup = Path.Combine(directory.Path, "backup");
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            Fill(env, 0, 10);
            await env.BackupAsync(backup);
            for (var i = 0; i < 40; i++)
            {
                Fill(env, 1000 + (i * 10), 10);
            }

            env.FlushToDataFile();
        }

        var archived = Directory.GetFiles(archive, "*.journal").Order(StringComparer.Ordinal).Last(); // records after the backup: the restore replays them
        var bytes = File.ReadAllBytes(archived);
        var at = Array.FindIndex(bytes, 600, b => b != 0); // inside the first record's sealed payload (past its 512-byte first sector)
        Assert.True(at > 0);
        bytes[at] ^= 0x20;
        File.WriteAllBytes(archived, bytes);

        var restored = Path.Combine(directory.Path, "restored");
        var error = await Assert.ThrowsAsync<CorruptionException>(() =>
            StorageEnvironment.RestoreAsync(backup, restored, new RestoreOptions { JournalArchiveDirectory = archive, EncryptionKey = Key }));
        Assert.Contains(Path.GetFileName(archived), error.File, StringComparison.Ordinal);
    }

    private static StorageEnvironmentOptions Options(string directory, string? archive = null)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.BackgroundFlush = false;
        options.JournalFileSize = 64 * 1024;
        options.JournalArchiveDirectory = archive;
        options.EncryptionKey = Key;
        return options;
    }

    private static void Fill(StorageEnvironment env, int from, int count)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("tamper");
        for (var i = from; i < from + count; i++)
        {
            tree.Put(Encoding.UTF8.GetBytes($"k{i:D5}"), Encoding.UTF8.GetBytes(new string('v', 200) + i));
        }

        tx.Commit();
    }
}
