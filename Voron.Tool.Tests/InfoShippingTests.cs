using System.Runtime.CompilerServices;
using System.Text.Json;

namespace Voron.Tool.Tests;

/// <summary><c>voron info --archive</c>: how far a store's journal archive is shipped, read from the archive directory.</summary>
public sealed class InfoShippingTests
{
    private static StorageEnvironmentOptions Options(string store, string archive, IArchiveDestination destination)
    {
        var options = StorageEnvironmentOptions.ForDirectory(store);
        options.JournalFileSize = 64 << 10;
        options.JournalArchiveDirectory = archive;
        options.ArchiveDestination = destination;
        options.ArchiveMaxDelay = Timeout.InfiniteTimeSpan; // only the test's flush releases files
        options.ArchiveShippingInterval = TimeSpan.FromHours(1);
        return options;
    }

    private static void Commit(StorageEnvironment env, int transactions)
    {
        for (var i = 0; i < transactions; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(System.Text.Encoding.UTF8.GetBytes($"k{i:D4}"), new byte[6000]);
            tx.Commit();
        }
    }

    [Fact]
    public async Task Info_shows_the_last_shipped_file_and_transaction_and_how_far_the_store_is_ahead()
    {
        using var scratch = new TempDirectory();
        var (store, archive) = (scratch.Combine("store"), scratch.Combine("archive"));
        ArchiveShippingStatus shipped;
        long committed;
        using (var env = StorageEnvironment.Open(Options(store, archive, new DirectoryArchiveDestination(scratch.Combine("remote")))))
        {
            Commit(env, 40);
            env.FlushToDataFile();
            shipped = await env.ShipArchiveAsync();
            Commit(env, 3); // in the live journal file: not shipped
            committed = env.LastCommittedTransactionId;
        }

        Assert.True(shipped.LastShippedFile > 0 && shipped.LastShippedTransaction > 0, shipped.ToString());
        var json = await ToolRun.RunAsync("info", store, "--archive", archive, "--json");
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var shipping = parsed.RootElement.GetProperty("shipping");
        Assert.True(shipping.GetProperty("sameStore").GetBoolean());
        Assert.Equal(shipped.LastShippedFile, shipping.GetProperty("lastShippedFile").GetInt64());
        Assert.Equal(shipped.LastShippedTransaction, shipping.GetProperty("lastShippedTransaction").GetInt64());
        Assert.Equal(0, shipping.GetProperty("pendingFiles").GetInt32());
        Assert.Equal(committed - shipped.LastShippedTransaction, shipping.GetProperty("transactionsBehind").GetInt64());

        var table = await ToolRun.RunAsync("info", store, "--archive", archive);
        Assert.True(table.ExitCode == ExitCodes.Ok, table.ToString());
        Assert.Contains($"shipped through journal file {shipped.LastShippedFile}", table.Out, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Info_shows_the_files_waiting_while_the_destination_is_down()
    {
        using var scratch = new TempDirectory();
        var (store, archive) = (scratch.Combine("store"), scratch.Combine("archive"));
        using (var env = StorageEnvironment.Open(Options(store, archive, new DownDestination())))
        {
            Commit(env, 40);
            env.FlushToDataFile();
            await Assert.ThrowsAsync<IOException>(() => env.ShipArchiveAsync());
        }

        var archived = Directory.GetFiles(archive, "*.journal");
        Assert.NotEmpty(archived);
        var json = await ToolRun.RunAsync("info", store, "--archive", archive, "--json");
        Assert.True(json.ExitCode == ExitCodes.Ok, json.ToString());
        using var parsed = JsonDocument.Parse(json.Out);
        var shipping = parsed.RootElement.GetProperty("shipping");
        Assert.Equal(0, shipping.GetProperty("lastShippedFile").GetInt64());
        Assert.Equal(archived.Length, shipping.GetProperty("pendingFiles").GetInt32());
        Assert.Equal(archived.Sum(f => new FileInfo(f).Length), shipping.GetProperty("pendingBytes").GetInt64());

        var table = await ToolRun.RunAsync("info", store, "--archive", archive);
        Assert.Contains("nothing shipped yet", table.Out, StringComparison.Ordinal);
        Assert.Contains("wait to ship", table.Out, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Info_says_so_when_the_archive_directory_is_missing_or_does_not_ship()
    {
        using var scratch = new TempDirectory();
        var store = scratch.Combine("store");
        var options = StorageEnvironmentOptions.ForDirectory(store);
        options.JournalArchiveDirectory = scratch.Combine("archive");
        using (var env = StorageEnvironment.Open(options))
        {
            Commit(env, 2);
        }

        Directory.CreateDirectory(scratch.Combine("archive"));
        var missing = await ToolRun.RunAsync("info", store, "--archive", scratch.Combine("nowhere"));
        Assert.Equal(ExitCodes.Usage, missing.ExitCode);
        Assert.Contains("nowhere", missing.Error, StringComparison.Ordinal);

        var table = await ToolRun.RunAsync("info", store, "--archive", scratch.Combine("archive"));
        Assert.True(table.ExitCode == ExitCodes.Ok, table.ToString());
        Assert.Contains("holds no voron.shipped file", table.Out, StringComparison.Ordinal);
    }

    /// <summary>A destination that is down: every call fails.</summary>
    private sealed class DownDestination : IArchiveDestination
    {
        public string Description => "down";

        public Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default) =>
            throw new IOException("down (test)");

        public Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default) =>
            throw new IOException("down (test)");

        public async IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null,
            [EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            await Task.Yield();
            throw new IOException("down (test)");
#pragma warning disable CS0162 // an iterator needs a yield
            yield break;
#pragma warning restore CS0162
        }

        public Task DeleteAsync(string key, CancellationToken cancellationToken = default) => throw new IOException("down (test)");
    }
}
