using Voron.Testing;

namespace Voron.Tests.Core.Compaction;

/// <summary>StorageEnvironment.CompactAsync on real files in a temporary directory.</summary>
public sealed class CompactAsyncTests
{
    private static StorageEnvironmentOptions Options(TempDirectory directory)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory.Path);
        options.JournalFileSize = 1 << 20;
        options.MaxDataFileSize = 1L << 30;
        return options;
    }

    private static List<string> Fill(TempDirectory directory, out long lastTransaction)
    {
        using var environment = StorageEnvironment.Open(Options(directory));
        CompactionStores.Fill(environment, seed: 11, scale: 4);
        lastTransaction = environment.LastCommittedTransactionId;
        return StoreContent.Of(environment);
    }

    private static void AssertNoCompactionFiles(TempDirectory directory)
    {
        var compaction = directory.Combine("compaction");
        Assert.Empty(Directory.Exists(compaction) ? Directory.GetFiles(compaction, "*", SearchOption.AllDirectories) : []);
    }

    [Fact]
    public async Task CompactAsync_swaps_in_a_smaller_store_with_the_same_content()
    {
        using var directory = new TempDirectory();
        var expected = Fill(directory, out var lastTransaction);
        var reports = new List<BackupProgress>();

        var result = await StorageEnvironment.CompactAsync(Options(directory), new SynchronousProgress(reports.Add));

        Assert.Equal(lastTransaction, result.TransactionId);
        Assert.True(result.DataFileBytesAfter < result.DataFileBytesBefore, $"{result.DataFileBytesAfter:N0} >= {result.DataFileBytesBefore:N0}");
        Assert.Equal(result.DataFileBytesAfter, new FileInfo(directory.Combine("voron.data")).Length);
        Assert.Equal(new[] { "copy", "verify", "swap" }, reports.Select(r => r.Phase).Distinct());
        AssertNoCompactionFiles(directory);
        using var environment = StorageEnvironment.Open(Options(directory));
        Assert.Equal(lastTransaction, environment.LastCommittedTransactionId);
        Assert.Equal(expected, StoreContent.Of(environment));
        environment.CheckIntegrity();

        // The compacted store takes writes and keeps them across a reopen like any store.
        using (var write = environment.BeginWrite())
        {
            write.CreateTree("after").Put("k"u8, "v"u8);
            write.Commit();
        }

        environment.Dispose();
        using var reopened = StorageEnvironment.Open(Options(directory));
        using var read = reopened.BeginRead();
        Assert.Equal("v"u8.ToArray(), read.OpenTree("after")!.Get("k"u8));
        Assert.Equal(lastTransaction + 1, reopened.LastCommittedTransactionId);
    }

    [Fact]
    public async Task CompactAsync_refuses_a_store_that_is_open()
    {
        using var directory = new TempDirectory();
        Fill(directory, out _);
        using var open = StorageEnvironment.Open(Options(directory));

        await Assert.ThrowsAsync<StoreLockedException>(() => StorageEnvironment.CompactAsync(Options(directory)));
        AssertNoCompactionFiles(directory);
    }

    [Theory]
    [InlineData("copy")]
    [InlineData("verify")]
    public async Task CompactAsync_cancelled_leaves_the_store_as_it_was(string phase)
    {
        using var directory = new TempDirectory();
        var expected = Fill(directory, out var lastTransaction);
        var before = new FileInfo(directory.Combine("voron.data")).Length;
        using var cancellation = new CancellationTokenSource();
        var progress = new SynchronousProgress(p =>
        {
            if (p.Phase == phase)
            {
                cancellation.Cancel(); // the copy stops at its next step
            }
        });

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => StorageEnvironment.CompactAsync(Options(directory), progress, cancellation.Token));

        AssertNoCompactionFiles(directory);
        Assert.Equal(before, new FileInfo(directory.Combine("voron.data")).Length);
        using var environment = StorageEnvironment.Open(Options(directory));
        Assert.Equal(lastTransaction, environment.LastCommittedTransactionId);
        Assert.Equal(expected, StoreContent.Of(environment));
        environment.CheckIntegrity();
    }
}
