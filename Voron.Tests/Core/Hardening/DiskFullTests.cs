using System.Diagnostics;

namespace Voron.Tests.Core.Hardening;

/// <summary>
/// After a full disk, freeing space must let the store open again, and a store must open on a small
/// file system at all. Run on the simulated disk (always) and on a real 48 MiB tmpfs (when the test
/// may mount one).
/// </summary>
public sealed class DiskFullTests(ITestOutputHelper output)
{
    private const long FileSystemSize = 48L << 20;
    private const int BallastBytes = 6 << 20;

    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>
    /// What broke: a new journal file was preallocated at the configured size (64 MiB by default)
    /// or not at all, so a new store could not be opened on a 48 MiB file system. Fixed by J12:
    /// on a full disk the file is preallocated at half the size, and so on down to what the next
    /// record needs.
    /// </summary>
    [Fact]
    public void A_new_store_with_64_MiB_journal_files_opens_and_commits_on_a_48_MiB_disk()
    {
        using var disk = new CrashFileSystem(1, "/data") { Capacity = FileSystemSize };
        var options = StorageEnvironmentOptions.ForFileSystem("/data/store", disk);
        options.BackgroundFlush = false;
        Assert.Equal(64L << 20, options.JournalFileSize);

        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        Assert.True(disk.UsedBytes <= FileSystemSize);
    }

    /// <summary>
    /// What broke: the commits of a store that filled the disk sat in the journal; recovery had
    /// to copy them into the data file, which grew by doubling with no smaller step, so freeing a
    /// few MiB did not let the store open ("every open still failed"). Fixed by PG5 (a commit
    /// reserves the data file for its pages, durably, before it is journaled: recovery never
    /// grows the file) and PG4 (growth falls back to exactly what is needed).
    /// </summary>
    [Fact]
    public void After_the_disk_fills_up_freeing_a_few_MiB_lets_the_store_open_with_every_acknowledged_commit()
    {
        using var disk = new CrashFileSystem(2, "/data") { Capacity = FileSystemSize };
        using (var ballast = disk.Open("/data/ballast", FileOpenMode.CreateNew))
        {
            ballast.Write(0, new byte[BallastBytes]);
            ballast.FlushData();
        }

        var options = StorageEnvironmentOptions.ForFileSystem("/data/store", disk);
        options.BackgroundFlush = false;
        options.JournalFileSize = 8L << 20;
        var acknowledged = FillUp(() => StorageEnvironment.Open(options), out var failure);
        output.WriteLine($"{acknowledged.Count} commits acknowledged, then: {failure.Message}");

        disk.DeleteFile("/data/ballast");
        using var reopened = StorageEnvironment.Open(options);
        AssertHolds(reopened, acknowledged);
    }

    /// <summary>The same cycle on a real 48 MiB tmpfs, with the default options (64 MiB journal files, background flush).</summary>
    [TmpfsFact]
    public void On_a_real_48_MiB_tmpfs_a_full_disk_then_freed_space_loses_nothing_acknowledged()
    {
        var mount = Path.Combine(Path.GetTempPath(), "voron-tmpfs-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(mount);
        try
        {
            Run("mount", $"-t tmpfs -o size=48m tmpfs {mount}");
            try
            {
                var ballast = Path.Combine(mount, "ballast");
                File.WriteAllBytes(ballast, new byte[BallastBytes]);
                var options = StorageEnvironmentOptions.ForDirectory(Path.Combine(mount, "store"));
                var acknowledged = FillUp(() => StorageEnvironment.Open(options), out var failure);
                output.WriteLine($"{acknowledged.Count} commits acknowledged, then: {failure.GetType().Name}: {failure.Message}");
                var full = failure as DiskFullException ?? failure.InnerException as DiskFullException;
                Assert.True(full != null, $"the full disk surfaced as {failure.GetType().Name}: {failure.Message}");
                Assert.True(full.BytesNeeded > 0 && full.Path != null, $"the DiskFullException says where and how much: {full.Message}");

                // Still full: the store opens (recovery needs no new space) and reads every acknowledged commit.
                using (var stillFull = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(Path.Combine(mount, "store"))))
                {
                    AssertHolds(stillFull, acknowledged);
                }

                File.Delete(ballast);
                using var reopened = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(Path.Combine(mount, "store")));
                AssertHolds(reopened, acknowledged);
                for (var i = 0; i < 20; i++)
                {
                    using var tx = reopened.BeginWrite();
                    tx.CreateTree("t").Put(B($"after-{i}"), Value(1_000_000 + i));
                    tx.Commit();
                }

                reopened.CheckIntegrity();
            }
            finally
            {
                Run("umount", mount);
            }
        }
        finally
        {
            Directory.Delete(mount, recursive: true);
        }
    }

    /// <summary>Commits 256 KiB values until the disk is full; returns the acknowledged keys and the failure.</summary>
    private static List<string> FillUp(Func<StorageEnvironment> open, out Exception failure)
    {
        var acknowledged = new List<string>();
        using var env = open();
        for (var i = 0; ; i++)
        {
            try
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(B($"key{i:D5}"), Value(i));
                tx.Commit();
                acknowledged.Add($"key{i:D5}");
            }
            catch (Exception e) when (e is IOException or EnvironmentFailedException)
            {
                failure = e;
                Assert.Throws<EnvironmentFailedException>(() => env.BeginWrite().Dispose()); // fail-stop until reopened
                return acknowledged;
            }

            Assert.True(i < 10_000, "the disk never filled up");
        }
    }

    private static byte[] Value(int i)
    {
        var value = new byte[256 * 1024];
        new Random(i).NextBytes(value);
        return value;
    }

    private static void AssertHolds(StorageEnvironment env, List<string> acknowledged)
    {
        using var read = env.BeginRead();
        var tree = read.OpenTree("t");
        Assert.NotNull(tree);
        for (var i = 0; i < acknowledged.Count; i++)
        {
            Assert.Equal(Value(i), tree.Get(B(acknowledged[i])));
        }

        env.CheckIntegrity();
    }

    private static void Run(string command, string arguments)
    {
        using var process = Process.Start(new ProcessStartInfo(command, arguments) { RedirectStandardError = true, UseShellExecute = false })!;
        var error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.True(process.ExitCode == 0, $"{command} {arguments} failed: {error}");
    }
}
