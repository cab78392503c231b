using Voron.Backup;

namespace Voron.Tests.Core.Backup;

/// <summary>A compacting backup (BackupOptions.Compact): the same content in fewer pages, restorable, never with an archive.</summary>
public sealed class CompactedBackupTests
{
    [Fact]
    public async Task A_compacted_backup_holds_the_snapshot_in_fewer_pages_and_restores_but_refuses_an_archive()
    {
        using var temp = new Voron.Testing.TempDirectory();
        var options = StorageEnvironmentOptions.ForDirectory(temp.Combine("store"));
        options.JournalArchiveDirectory = temp.Combine("archive");
        using var env = StorageEnvironment.Open(options);
        await BackupTests.Fill(env, 600);
        await env.ExecuteAsync(tx =>
        {
            var tree = tx.CreateTree(StoreContents.TreeName);
            for (var i = 0; i < 600; i += 3)
            {
                tree.Delete(Encoding.UTF8.GetBytes($"k{i:D5}")); // a third of the pages' data gone: free space a plain copy keeps
            }

            tx.CreatePageFile(StoreContents.PageFileName).Write(3 * PageFile.BlockSize, "block three"u8); // a page file with a gap
        });

        StoreContents expected;
        long sourcePages;
        using (var read = env.BeginRead())
        {
            expected = StoreContents.Read(read);
            sourcePages = read.Low.Committed.State.NextPageNumber;
        }

        var plain = await env.BackupAsync(temp.Combine("plain"));
        var compacted = await env.BackupAsync(temp.Combine("compacted"), new BackupOptions { Compact = true });

        Assert.True(compacted.Compacted);
        Assert.Equal(plain.TransactionId, compacted.TransactionId);
        Assert.Equal(sourcePages, plain.Pages);
        Assert.True(compacted.Pages < plain.Pages, $"compacted {compacted.Pages} pages, plain {plain.Pages}");
        Assert.True(File.Exists(Path.Combine(compacted.Directory, BackupManifest.FileName)));
        Assert.False(File.Exists(Path.Combine(compacted.Directory, BackupManifest.FileName + ".partial")));
        StoreContents.AssertStore(compacted.Directory, expected, compacted.TransactionId);

        var restored = await StorageEnvironment.RestoreAsync(compacted.Directory, temp.Combine("restored"));
        StoreContents.AssertStore(restored.Directory, expected, compacted.TransactionId);

        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => StorageEnvironment.RestoreAsync(compacted.Directory, temp.Combine("pitr"),
            new RestoreOptions { JournalArchiveDirectory = temp.Combine("archive") }));
        Assert.Contains("compacted", refused.Message);
    }
}
