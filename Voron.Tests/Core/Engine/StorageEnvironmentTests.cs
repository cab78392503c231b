using Voron.Header;

namespace Voron.Tests.Core.Engine;

public sealed class StorageEnvironmentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    [Fact]
    public void Open_creates_a_store_whose_commits_survive_reopen()
    {
        var options = StorageEnvironmentOptions.ForDirectory(_directory.Path);
        using (var env = StorageEnvironment.Open(options))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("users").Put(B("alice"), B("1"));
            tx.Commit();
        }

        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path)))
        {
            using var read = env.BeginRead();
            Assert.Equal(B("1"), read.OpenTree("users")!.Get(B("alice")));
            Assert.Equal(1, env.LastCommittedTransactionId);
        }
    }

    [Fact]
    public void Open_refuses_a_second_opener_in_the_same_process_naming_the_path()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path));

        var error = Assert.Throws<StoreLockedException>(() => StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path)));

        Assert.Contains(_directory.Path, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Open_holds_a_lock_that_another_process_cannot_take()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path));

        // util-linux flock(1) in another process: -n fails at once (exit 1) when the lock is held.
        using var other = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("flock", ["-n", System.IO.Path.Combine(_directory.Path, "voron.lock"), "true"])
        {
            RedirectStandardError = true,
        })!;
        other.WaitForExit();

        Assert.Equal(1, other.ExitCode);
    }

    [Fact]
    public void Open_creates_files_readable_by_the_owner_only()
    {
        using (var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(_directory.Path)))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        foreach (var file in Directory.GetFiles(_directory.Path, "*", SearchOption.AllDirectories))
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file));
        }
    }

    [Fact]
    public void Recovery_replays_commits_when_the_process_dropped_the_store_without_closing()
    {
        using var fs = StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        for (var i = 0; i < 50; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(B($"key{i:D3}"), B($"value{i}"));
            tx.Commit();
        }

        env.CloseWithoutFlush();

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.Equal(50, tree.Count);
        Assert.Equal(B("value49"), tree.Get(B("key049")));
        Assert.Equal(50, reopened.LastCommittedTransactionId);
        reopened.CheckIntegrity();
    }

    [Fact]
    public void Open_uses_the_other_header_copy_when_the_newest_is_torn()
    {
        using var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            for (var i = 0; i < 3; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(B($"k{i}"), B("v"));
                tx.Commit();
                env.FlushToDataFile();
            }
        }

        // Garble whichever copy is newer: the older copy plus the journal still hold everything.
        var layout = new StoreLayout("/store");
        var newest = HeaderFile.ReadNewest(fs, layout)!.Value;
        using (var file = fs.Open(layout.HeaderFile(newest.Revision), FileOpenMode.OpenExisting))
        {
            file.Write(20, new byte[] { 0xFF, 0xEE, 0xDD });
        }

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        Assert.Equal(3, read.OpenTree("t")!.Count);
    }

    [Fact]
    public void Open_reports_a_header_of_another_format_version()
    {
        using var fs = StoreFactory.NewFileSystem();
        StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose();
        var layout = new StoreLayout("/store");
        var header = HeaderFile.ReadNewest(fs, layout)!.Value;
        var bytes = HeaderFile.Encode(header);
        bytes[8] = 99; // format version
        var crc = Crc32C.Compute(bytes.AsSpan(0, 112));
        BitConverter.TryWriteBytes(bytes.AsSpan(112), crc);
        using (var file = fs.Open(layout.HeaderFile(header.Revision), FileOpenMode.OpenExisting))
        {
            file.Write(0, bytes);
        }

        var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));
        Assert.Equal(99, error.Found);
        Assert.Equal(HeaderFile.SealedFormatVersion, error.Supported); // the newest this build reads
    }

    [Fact]
    public void Open_refuses_a_data_file_whose_headers_are_missing()
    {
        using var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(B("k"), new byte[100_000]);
            tx.Commit();
        }

        fs.DeleteFile("/store/headers.one");
        fs.DeleteFile("/store/headers.two");

        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));
    }

    [Fact]
    public void InMemory_store_works_and_is_independent_of_other_in_memory_stores()
    {
        using var first = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var second = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = first.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        using var a = first.BeginRead();
        using var b = second.BeginRead();
        Assert.Equal(B("v"), a.OpenTree("t")!.Get(B("k")));
        Assert.Null(b.OpenTree("t"));
    }

    [Fact]
    public void Put_rejects_keys_longer_than_the_maximum_and_empty_keys()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");

        tree.Put(new byte[Constants.MaxKeySize], B("ok"));
        Assert.Throws<ArgumentException>(() => tree.Put(new byte[Constants.MaxKeySize + 1], B("v")));
        Assert.Throws<ArgumentException>(() => tree.Put(ReadOnlySpan<byte>.Empty, B("v")));
    }

    [Fact]
    public void Large_values_survive_commit_flush_and_reopen()
    {
        using var fs = StoreFactory.NewFileSystem();
        var big = new byte[5_000_000];
        new Random(7).NextBytes(big);
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree("blobs");
                tree.Put(B("big"), big);
                tree.Put(B("medium"), big.AsSpan(0, 20_000));
                tree.Put(B("empty"), ReadOnlySpan<byte>.Empty);
                tx.Commit();
            }

            env.FlushToDataFile();
        }

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        var blobs = read.OpenTree("blobs")!;
        Assert.Equal(big, blobs.Get(B("big"))!);
        Assert.Equal(big.AsSpan(0, 20_000).ToArray(), blobs.Get(B("medium"))!);
        Assert.Equal(Array.Empty<byte>(), blobs.Get(B("empty"))!);
        reopened.CheckIntegrity();
    }

    [Fact]
    public void Rollback_leaves_no_trace_and_frees_nothing_twice()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("kept"), B("1"));
            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            tree.Put(B("dropped"), B("2"));
            tree.Delete(B("kept"));
            tx.CreateTree("other").Put(B("x"), B("y"));
        }

        using var read = env.BeginRead();
        Assert.Equal(B("1"), read.OpenTree("t")!.Get(B("kept")));
        Assert.Null(read.OpenTree("t")!.Get(B("dropped")));
        Assert.Equal(["t"], read.GetTreeNames());
        env.CheckIntegrity();
    }

    [Fact]
    public void DeleteTree_frees_its_pages_for_reuse()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("doomed");
            for (var i = 0; i < 5000; i++)
            {
                tree.Put(B($"key-{i:D6}"), new byte[200]);
            }

            tx.Commit();
        }

        var before = env.CheckIntegrity();
        using (var tx = env.BeginWrite())
        {
            Assert.True(tx.DeleteTree("doomed"));
            Assert.False(tx.DeleteTree("doomed"));
            tx.Commit();
        }

        var after = env.CheckIntegrity();
        Assert.Equal(0, after.Trees);
        Assert.True(after.FreePages >= before.Pages - before.FreePages - 3, $"freed {after.FreePages} of {before.Pages} pages");
    }

    [Fact]
    public void Dispose_during_a_write_transaction_rolls_it_back_and_makes_it_unusable()
    {
        using var fs = StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(B("k"), B("v"));

        env.Dispose();

        Assert.Throws<ObjectDisposedException>(() => tree.Put(B("k2"), B("v")));
        Assert.Throws<ObjectDisposedException>(() => tx.Commit());
        tx.Dispose();
        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var read = reopened.BeginRead();
        Assert.Null(read.OpenTree("t"));
    }

    [Fact]
    public void Dispose_during_a_read_transaction_keeps_its_memory_valid_until_it_ends()
    {
        var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        env.FlushToDataFile();
        var read = env.BeginRead();
        var tree = read.OpenTree("t")!;
        env.Dispose();

        Assert.Throws<ObjectDisposedException>(() => tree.Get(B("k")));
        Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
        read.Dispose();
    }

    [Fact]
    public void BeginWrite_times_out_while_another_write_transaction_is_active()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using var first = env.BeginWrite();

        Assert.Throws<TimeoutException>(() => env.BeginWrite(TimeSpan.FromMilliseconds(50)));
    }

    [Fact]
    public void Read_transaction_refuses_changes()
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.CreateInMemory());
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        using var read = env.BeginRead();
        Assert.Throws<InvalidOperationException>(() => read.OpenTree("t")!.Put(B("k"), B("x")));
    }

    public void Dispose() => _directory.Dispose();
}
