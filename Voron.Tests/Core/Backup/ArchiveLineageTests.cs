namespace Voron.Tests.Core.Backup;

/// <summary>
/// BK9: a compacted store and a restored store number their journal files past the source's, so
/// that sharing the source's archive directory never makes a file of a number already archived
/// (JA4 would fail the store), and the archive goes on serving point-in-time restore.
/// </summary>
public sealed class ArchiveLineageTests
{
    private static StorageEnvironmentOptions Options(string directory, string archive)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalFileSize = 64 << 10;
        options.JournalArchiveDirectory = archive;
        return options;
    }

    private static async Task WriteAndReleaseAsync(StorageEnvironment env, string prefix, int transactions, SortedDictionary<string, byte[]> model)
    {
        var random = new Random(prefix.GetHashCode(StringComparison.Ordinal));
        for (var t = 0; t < transactions; t++)
        {
            var key = $"{prefix}-{t % 40}";
            var value = new byte[random.Next(200, 3000)];
            random.NextBytes(value);
            await env.ExecuteAsync(tx => tx.CreateTree(StoreContents.TreeName).Put(Encoding.UTF8.GetBytes(key), value));
            model[key] = value;
        }

        env.FlushToDataFile(); // releases, so archives, the journal files the data file no longer needs
        Assert.False(env.IsFailed, env.Failure?.ToString());
    }

    private static List<long> Archived(string archive) =>
        [.. Directory.GetFiles(archive, "*.journal").Select(f => long.Parse(Path.GetFileNameWithoutExtension(f), System.Globalization.CultureInfo.InvariantCulture)).Order()];

    [Fact]
    public async Task A_compacted_and_a_restored_store_archive_into_the_source_archive_without_reusing_a_number()
    {
        using var temp = new Voron.Testing.TempDirectory();
        var archive = temp.Combine("archive");
        var store = temp.Combine("store");
        var model = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            await WriteAndReleaseAsync(env, "before", 120, model);
        }

        var before = Archived(archive);
        Assert.NotEmpty(before);

        await StorageEnvironment.CompactAsync(Options(store, archive));

        BackupResult backup;
        using (var env = StorageEnvironment.Open(Options(store, archive)))
        {
            backup = await env.BackupAsync(temp.Combine("backup"));
            await WriteAndReleaseAsync(env, "after", 120, model);
        }

        var after = Archived(archive);
        Assert.True(after.Count > before.Count, "the compacted store archived files of its own");
        Assert.True(after.Except(before).Min() > before.Max(), "its files are numbered past the old store's");

        // The compacted store's backup plus the shared archive restore to its last archived transaction.
        var restored = await StorageEnvironment.RestoreAsync(backup.Directory, temp.Combine("restored"), new RestoreOptions { JournalArchiveDirectory = archive });
        Assert.True(restored.TransactionsReplayed > 0);

        // The restored store, opened with the same archive directory, archives past everything there.
        using (var env = StorageEnvironment.Open(Options(restored.Directory, archive)))
        {
            await WriteAndReleaseAsync(env, "restored", 120, []);
        }

        var last = Archived(archive);
        Assert.True(last.Except(after).Min() > after.Max(), "the restored store's files are numbered past the archive's");
    }
}
