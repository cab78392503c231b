namespace Voron.Tests.Core.Journal;

public sealed class LazyJournalTests
{
    private static JournalPage[] OnePage(long number, byte fill)
    {
        var image = new byte[Constants.PageSize];
        image.AsSpan().Fill(fill);
        return [new JournalPage(number, image)];
    }

    [Fact]
    public void Recover_treats_a_broken_record_followed_only_by_lazy_records_as_a_torn_tail()
    {
        using var fs = new InMemoryFileSystem(1L << 30);
        var starts = new List<JournalPosition>();
        using (var writer = new JournalWriter(fs, "/j", JournalHarness.StoreId, new JournalPosition(1, 0), 1, 1 << 20))
        {
            for (var tx = 1; tx <= 4; tx++)
            {
                starts.Add(writer.Append(tx, new byte[64], OnePage(tx, (byte)tx), compress: false, sync: false).Start);
            }
        }

        // The OS wrote records 3 and 4 back but not all of record 2 before the power failed.
        using (var file = fs.Open(JournalFiles.PathOf("/j", 1), FileOpenMode.OpenExisting))
        {
            file.Write(starts[1].Offset + 1024, new byte[512]);
        }

        var applied = new List<long>();
        var result = JournalReader.Recover(fs, "/j", JournalHarness.StoreId, new JournalPosition(1, 0), 1, r => applied.Add(r.TransactionId));

        Assert.Equal([1L], applied);
        Assert.Equal(starts[1], result.End);
    }

    [Fact]
    public void Recover_reports_corruption_when_a_later_record_says_the_broken_one_was_durable()
    {
        using var fs = new InMemoryFileSystem(1L << 30);
        var starts = new List<JournalPosition>();
        using (var writer = new JournalWriter(fs, "/j", JournalHarness.StoreId, new JournalPosition(1, 0), 1, 1 << 20))
        {
            for (var tx = 1; tx <= 4; tx++)
            {
                if (tx == 4)
                {
                    writer.Sync(); // the lazy mode's timer: records 1..3 are durable from here on
                }

                starts.Add(writer.Append(tx, new byte[64], OnePage(tx, (byte)tx), compress: false, sync: false).Start);
            }
        }

        using (var file = fs.Open(JournalFiles.PathOf("/j", 1), FileOpenMode.OpenExisting))
        {
            file.Write(starts[1].Offset + 1024, new byte[512]);
        }

        // Record 4 says every record through 3 was durable when it was written (J11): record 2,
        // however torn it looks, was durable and has been damaged since.
        var error = Assert.Throws<CorruptionException>(() => JournalReader.Recover(fs, "/j", JournalHarness.StoreId, new JournalPosition(1, 0), 1, _ => { }));
        Assert.Equal(starts[1].Offset, error.Offset);
        Assert.Contains("was written when every record through tx 3 was durable", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_reads_a_flushed_record_after_unflushed_lazy_ones_as_no_proof_for_them()
    {
        // Record 4 was written (then flushed) while 2 and 3 were still only in the OS's cache: a
        // crash before its flush returned can keep 4 and lose part of 2, so 4 proves nothing
        // about 2 (its DurableThrough is 1). The format-1 rule "a flushed record proves every
        // earlier one" was wrong here.
        using var fs = new InMemoryFileSystem(1L << 30);
        var starts = new List<JournalPosition>();
        using (var writer = new JournalWriter(fs, "/j", JournalHarness.StoreId, new JournalPosition(1, 0), 1, 1 << 20))
        {
            for (var tx = 1; tx <= 4; tx++)
            {
                starts.Add(writer.Append(tx, new byte[64], OnePage(tx, (byte)tx), compress: false, sync: tx is 1 or 4).Start);
            }
        }

        using (var file = fs.Open(JournalFiles.PathOf("/j", 1), FileOpenMode.OpenExisting))
        {
            file.Write(starts[1].Offset + 1024, new byte[512]);
        }

        var applied = new List<long>();
        var result = JournalReader.Recover(fs, "/j", JournalHarness.StoreId, new JournalPosition(1, 0), 1, r => applied.Add(r.TransactionId));
        Assert.Equal([1L], applied);
        Assert.Equal(starts[1], result.End);
    }

    [Fact]
    public async Task Lazy_mode_acknowledges_without_a_journal_flush_and_flushes_within_the_interval()
    {
        using var memory = StoreFactory.NewFileSystem();
        var fs = new RecordingFileSystem(memory);
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
        options.BackgroundFlush = false;
        options.Durability = DurabilityMode.Lazy;
        options.LazyFlushInterval = TimeSpan.FromMilliseconds(250); // long enough that 20 commits on a loaded machine see fewer than 20 ticks
        options.MaxDataFileSize = 4L << 30;
        using (var env = StorageEnvironment.Open(options))
        {
            using (var first = env.BeginWrite())
            {
                first.CreateTree("t").Put([255], [1]); // the journal's first 1 MiB is zero-filled by this record's write (J10)
                first.Commit();
            }

            env.FlushToDataFile();
            lock (fs.Log)
            {
                fs.Log.Clear();
            }

            for (var i = 0; i < 20; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put([(byte)i], [1]);
                tx.Commit();
            }

            string[] Lines()
            {
                lock (fs.Log)
                {
                    return [.. fs.Log];
                }
            }

            var writes = Lines().Count(l => l.StartsWith("Write /store/journal/", StringComparison.Ordinal));
            Assert.Equal(20, writes);
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (!Lines().Any(l => l.StartsWith("FlushData /store/journal/", StringComparison.Ordinal)) && DateTime.UtcNow < deadline)
            {
                await Task.Delay(10);
            }

            Assert.Contains(Lines(), l => l.StartsWith("FlushData /store/journal/", StringComparison.Ordinal));
            Assert.True(Lines().Count(l => l.StartsWith("FlushData /store/journal/", StringComparison.Ordinal)) < 20);
        }

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(memory));
        using var read = reopened.BeginRead();
        Assert.Equal(21, read.OpenTree("t")!.Count); // the 20 lazy commits and the first one
    }

    [Fact]
    public async Task A_lazy_journal_sync_failing_with_any_exception_type_fails_the_store()
    {
        // Regression: the lazy sync loop failed the store only for I/O-type exceptions; any
        // other type ended the loop silently, and the store went on acknowledging lazy commits
        // that no later sync would ever make durable.
        var fs = new RecordingFileSystem(StoreFactory.NewFileSystem());
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fs);
        options.BackgroundFlush = false;
        options.Durability = DurabilityMode.Lazy;
        options.LazyFlushInterval = TimeSpan.FromMilliseconds(10);
        options.MaxDataFileSize = 4L << 30;
        using var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put([1], [1]);
            tx.Commit(); // lazy: written, not flushed
        }

        // The timer syncs every 10 ms whatever the load; failing its syncs only from here on keeps
        // the commit above out of the race, however busy the machine.
        fs.FailWith = line => new InvalidOperationException($"injected: a file system bug at {line}");
        fs.FailWhen = line => line.StartsWith("FlushData /store/journal/", StringComparison.Ordinal);

        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (env.Failure == null && DateTime.UtcNow < deadline)
        {
            await Task.Delay(10);
        }

        Assert.Null(fs.FailWhen); // the sync ran and failed
        var error = Assert.Throws<EnvironmentFailedException>(() => env.BeginWrite());
        Assert.IsType<InvalidOperationException>(error.InnerException);
    }
}
