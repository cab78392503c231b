using Voron.Tests.Core.Journal;

namespace Voron.Tests.Core.Faults;

public sealed class FailStopTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    private static void Commit(StorageEnvironment env, int i)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(B($"key{i:D4}"), B($"value{i}"));
        tx.Commit();
    }

    [Theory]
    [InlineData("Write /store/journal/")]
    [InlineData("FlushData /store/journal/")]
    public void Failed_journal_write_fails_the_commit_and_refuses_writes_until_reopen(string failingCall)
    {
        using var memory = StoreFactory.NewFileSystem();
        var fs = new RecordingFileSystem(memory);
        var env = StorageEnvironment.Open(StoreFactory.Options(memory));
        for (var i = 0; i < 10; i++)
        {
            Commit(env, i);
        }

        env.Dispose();
        env = StorageEnvironment.Open(StorageOptionsOver(fs));
        for (var i = 10; i < 20; i++)
        {
            Commit(env, i);
        }

        fs.FailWhen = line => line.StartsWith(failingCall, StringComparison.Ordinal);
        var error = Assert.Throws<EnvironmentFailedException>(() => Commit(env, 20));
        Assert.IsType<IOException>(error.InnerException);

        // Fail-stop: no more writes, even though the disk works again; reads still work.
        Assert.Throws<EnvironmentFailedException>(() => env.BeginWrite());
        using (var read = env.BeginRead())
        {
            Assert.Equal(20, read.OpenTree("t")!.Count);
        }

        env.CloseWithoutFlush();
        using var reopened = StorageEnvironment.Open(StorageOptionsOver(fs));
        using var after = reopened.BeginRead();
        var tree = after.OpenTree("t")!;
        Assert.True(tree.Count is 20 or 21, $"every acknowledged commit survives; found {tree.Count}");
        Assert.Equal(B("value19"), tree.Get(B("key0019")));
        Commit(reopened, 30);
        reopened.CheckIntegrity();
    }

    [Theory]
    [InlineData("WriteGather /store/voron.data")]
    [InlineData("FlushData /store/voron.data")]
    [InlineData("Write /store/headers.")]
    [InlineData("FlushData /store/headers.")]
    public void Failed_flush_fails_the_environment_and_loses_nothing_acknowledged(string failingCall)
    {
        using var memory = StoreFactory.NewFileSystem();
        var fs = new RecordingFileSystem(memory);
        var env = StorageEnvironment.Open(StorageOptionsOver(fs));
        for (var i = 0; i < 25; i++)
        {
            Commit(env, i);
        }

        fs.FailWhen = line => line.StartsWith(failingCall, StringComparison.Ordinal);
        Assert.Throws<EnvironmentFailedException>(() => env.FlushToDataFile());
        Assert.Throws<EnvironmentFailedException>(() => Commit(env, 99));

        env.CloseWithoutFlush();
        using var reopened = StorageEnvironment.Open(StorageOptionsOver(fs));
        using (var read = reopened.BeginRead())
        {
            Assert.Equal(25, read.OpenTree("t")!.Count);
        }

        reopened.FlushToDataFile();
        reopened.CheckIntegrity();
    }

    [Fact]
    public void Full_disk_while_growing_the_journal_is_a_clear_error_and_fails_the_commit()
    {
        using var memory = StoreFactory.NewFileSystem();
        var fs = new RecordingFileSystem(memory);
        var options = StorageOptionsOver(fs);
        options.JournalFileSize = 64 * 1024;
        var env = StorageEnvironment.Open(options);
        fs.FailWhen = line => line.StartsWith("Preallocate /store/journal/", StringComparison.Ordinal);

        var error = Assert.Throws<EnvironmentFailedException>(() =>
        {
            for (var i = 0; i < 100; i++)
            {
                Commit(env, i);
            }
        });

        Assert.Contains("injected failure", error.Message, StringComparison.Ordinal);
        env.CloseWithoutFlush();
    }

    private static StorageEnvironmentOptions StorageOptionsOver(RecordingFileSystem fs)
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
        options.BackgroundFlush = false;
        options.JournalFileSize = 1 << 20;
        options.MaxDataFileSize = 4L << 30;
        return options;
    }
}
