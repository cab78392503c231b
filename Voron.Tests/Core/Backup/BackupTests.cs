using System.Collections.Concurrent;
using Voron.Backup;
using Voron.PageFiles;
using Voron.Testing;

namespace Voron.Tests.Core.Backup;

/// <summary>Hot backup (BK1..BK7): a consistent snapshot while writers go on, verified, all or nothing.</summary>
public sealed class BackupTests
{
    private static StorageEnvironmentOptions Options(string directory)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.JournalFileSize = 64 << 10;
        options.FlushThresholdBytes = 256 << 10; // the flusher runs (and moves the horizon) during the backup
        options.FlushInterval = TimeSpan.FromMilliseconds(5);
        return options;
    }

    [Fact]
    public async Task A_backup_during_concurrent_writes_holds_exactly_the_snapshot_it_names()
    {
        using var temp = new TempDirectory();
        var log = new ConcurrentBag<(long TxId, string Key, byte[]? Value, long Offset, byte[]? Block)>();
        using var env = StorageEnvironment.Open(Options(temp.Combine("store")));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree(StoreContents.TreeName);
            tx.CreatePageFile(StoreContents.PageFileName);
            tx.Commit();
        }

        // A base large enough that the copy takes many chunks.
        var random = new Random(7);
        for (var batch = 0; batch < 20; batch++)
        {
            var txId = await env.ExecuteAsync(tx =>
            {
                var tree = tx.CreateTree(StoreContents.TreeName);
                for (var i = 0; i < 50; i++)
                {
                    var value = new byte[random.Next(100, 3000)];
                    random.NextBytes(value);
                    tree.Put(Encoding.UTF8.GetBytes($"base-{batch}-{i}"), value);
                }

                return tx.Id;
            });
            _ = txId;
        }

        StoreContents baseline;
        using (var read = env.BeginRead())
        {
            baseline = StoreContents.Read(read);
        }
        using var stop = new CancellationTokenSource();
        var writers = Enumerable.Range(0, 4).Select(w => Task.Run(async () =>
        {
            var rng = new Random(100 + w);
            for (var n = 0; !stop.IsCancellationRequested || n < 20; n++)
            {
                var key = $"w{w}-{rng.Next(40)}";
                var value = rng.Next(5) == 0 ? null : new byte[rng.Next(10, w == 0 ? 20000 : 500)];
                if (value != null)
                {
                    rng.NextBytes(value);
                }

                var offset = (long)((w * 8) + rng.Next(8)) * PageFile.BlockSize;
                var block = new byte[PageFile.BlockSize];
                rng.NextBytes(block);
                var txId = await env.ExecuteAsync(tx =>
                {
                    var tree = tx.CreateTree(StoreContents.TreeName);
                    if (value == null)
                    {
                        tree.Delete(Encoding.UTF8.GetBytes(key));
                    }
                    else
                    {
                        tree.Put(Encoding.UTF8.GetBytes(key), value);
                    }

                    tx.CreatePageFile(StoreContents.PageFileName).Write(offset, block);
                    return tx.Id;
                });
                log.Add((txId, key, value, offset, block));
            }
        })).ToArray();

        // The backup must fall inside the workload: writes before it and after it. Waited for, not
        // timed, so a busy machine that starts the writers late changes nothing.
        await Until(() => log.Count >= 4);
        var result = await env.BackupAsync(temp.Combine("backup"));
        await Until(() => log.Any(e => e.TxId > result.TransactionId));
        await stop.CancelAsync();
        await Task.WhenAll(writers);

        Assert.True(log.Any(e => e.TxId <= result.TransactionId) && log.Any(e => e.TxId > result.TransactionId),
            "the backup's snapshot fell inside the concurrent workload");
        var expected = baseline.Clone();
        foreach (var entry in log.Where(e => e.TxId <= result.TransactionId).OrderBy(e => e.TxId))
        {
            if (entry.Value == null)
            {
                expected.Entries.Remove(entry.Key);
            }
            else
            {
                expected.Entries[entry.Key] = entry.Value;
            }

            expected.WritePageFile(entry.Offset, entry.Block!);
        }

        Assert.False(result.Compacted);
        Assert.True(result.WriterPause < TimeSpan.FromSeconds(30)); // measured, reported; never asserted as a speed
        Assert.True(File.Exists(Path.Combine(result.Directory, BackupManifest.FileName)));
        StoreContents.AssertStore(result.Directory, expected, result.TransactionId);
    }

    [Fact]
    public async Task Progress_reports_copy_then_verify_with_done_increasing_to_total()
    {
        using var temp = new TempDirectory();
        using var env = StorageEnvironment.Open(Options(temp.Combine("store")));
        await Fill(env, 300);
        var reports = new List<BackupProgress>();
        var progress = new SynchronousProgress(reports.Add);
        var result = await env.BackupAsync(temp.Combine("backup"), new BackupOptions { Progress = progress });

        var copy = reports.Where(r => r.Phase == "copy").ToList();
        var verify = reports.Where(r => r.Phase == "verify").ToList();
        Assert.NotEmpty(copy);
        Assert.NotEmpty(verify);
        Assert.True(reports.FindLastIndex(r => r.Phase == "copy") < reports.FindIndex(r => r.Phase == "verify"), "copy comes before verify");
        foreach (var phase in new[] { copy, verify })
        {
            Assert.True(phase.Zip(phase.Skip(1)).All(p => p.Second.Done >= p.First.Done), "Done never goes back within a phase");
            Assert.Equal(phase[^1].Total, phase[^1].Done);
        }

        Assert.Equal(result.Pages, copy[^1].Total);
        Assert.Equal(result.Bytes, reports[^1].BytesWritten);
    }

    [Fact]
    public async Task A_cancelled_backup_leaves_nothing_under_the_final_name()
    {
        using var temp = new TempDirectory();
        using var env = StorageEnvironment.Open(Options(temp.Combine("store")));
        await Fill(env, 300);
        using var cancel = new CancellationTokenSource();
        var progress = new SynchronousProgress(p =>
        {
            if (p.Phase == "copy" && p.Done > 0)
            {
                cancel.Cancel();
            }
        });
        var destination = temp.Combine("backup");

        // Throttled so that the copy is still running when the first progress report cancels it.
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            env.BackupAsync(destination, new BackupOptions { Progress = progress, MaxBytesPerSecond = 4 << 20 }, cancel.Token));

        Assert.False(Directory.Exists(destination), "the destination was removed");
        Assert.DoesNotContain(Directory.GetFileSystemEntries(temp.Path), p => p != temp.Combine("store"));
    }

    [Fact]
    public async Task A_backup_refuses_a_destination_with_files_and_a_second_backup_into_the_same_directory()
    {
        using var temp = new TempDirectory();
        using var env = StorageEnvironment.Open(Options(temp.Combine("store")));
        await Fill(env, 10);
        var busy = temp.Combine("busy");
        Directory.CreateDirectory(busy);
        File.WriteAllText(Path.Combine(busy, "notes.txt"), "mine");
        var refused = await Assert.ThrowsAsync<IOException>(() => env.BackupAsync(busy));
        Assert.Contains("not empty", refused.Message);
        Assert.Equal("mine", File.ReadAllText(Path.Combine(busy, "notes.txt")));

        var first = await env.BackupAsync(temp.Combine("b"));
        var again = await Assert.ThrowsAsync<IOException>(() => env.BackupAsync(first.Directory));
        Assert.Contains("already holds a backup", again.Message);
    }

    [Fact]
    public async Task A_leftover_of_an_incomplete_backup_is_deleted_and_the_backup_completes()
    {
        using var temp = new TempDirectory();
        using var env = StorageEnvironment.Open(Options(temp.Combine("store")));
        await Fill(env, 10);
        var destination = temp.Combine("b");
        Directory.CreateDirectory(destination);
        File.WriteAllBytes(Path.Combine(destination, BackupManifest.FileName + ".partial"), []);
        File.WriteAllBytes(Path.Combine(destination, "voron.data"), new byte[8192 * 3]);

        var result = await env.BackupAsync(destination);

        using var read = env.BeginRead();
        StoreContents.AssertStore(result.Directory, StoreContents.Read(read), result.TransactionId);
    }

    internal static async Task Fill(StorageEnvironment env, int entries)
    {
        var random = new Random(entries);
        await env.ExecuteAsync(tx =>
        {
            var tree = tx.CreateTree(StoreContents.TreeName);
            for (var i = 0; i < entries; i++)
            {
                var value = new byte[random.Next(100, 4000)];
                random.NextBytes(value);
                tree.Put(Encoding.UTF8.GetBytes($"k{i:D5}"), value);
            }
        });
    }

    /// <summary>Reports on the calling thread (Progress&lt;T&gt; posts to the thread pool, out of order).</summary>
    internal sealed class SynchronousProgress(Action<BackupProgress> report) : IProgress<BackupProgress>
    {
        public void Report(BackupProgress value) => report(value);
    }

    private static async Task Until(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromMinutes(2);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the writers made no progress in two minutes");
            await Task.Delay(5);
        }
    }
}
