namespace Voron.Tests.Core.Recovery;

public sealed class StoreRecoveryTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>Commits <paramref name="count"/> transactions and drops the store without a flush; returns where each record starts.</summary>
    private static List<JournalPosition> CommitAndDrop(Voron.Platform.Memory.InMemoryFileSystem fs, int count)
    {
        var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        var starts = new List<JournalPosition>();
        var random = new Random(count);
        for (var i = 0; i < count; i++)
        {
            starts.Add(env.Journal.Position);
            using var tx = env.BeginWrite();
            // Incompressible values, so even a diffed and compressed record spans several sectors.
            var value = new byte[3000];
            random.NextBytes(value);
            value[0] = (byte)i;
            tx.CreateTree("t").Put(B($"key{i:D4}"), value);
            tx.Commit();
        }

        env.CloseWithoutFlush();
        return starts;
    }

    [Fact]
    public void Recover_discards_a_torn_last_record_and_keeps_every_earlier_commit()
    {
        using var fs = StoreFactory.NewFileSystem();
        var starts = CommitAndDrop(fs, 10);
        var last = starts[^1];
        using (var file = fs.Open(JournalFiles.PathOf("/store/journal", last.FileNumber), FileOpenMode.OpenExisting))
        {
            // Tear the last record: its second 512-byte sector still holds what the journal held
            // there before the write — zeros (J10) — not what the record wrote.
            file.Write(last.Offset + 512, new byte[512]);
        }

        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        using (var read = env.BeginRead())
        {
            var tree = read.OpenTree("t")!;
            Assert.Equal(9, tree.Count);
            Assert.Null(tree.Get(B("key0009")));
        }

        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("after"), B("recovery"));
            tx.Commit();
        }

        Assert.Equal(10, env.LastCommittedTransactionId);
        env.CheckIntegrity();
    }

    [Fact]
    public void Recover_reports_a_corrupted_middle_record_with_file_and_offset()
    {
        using var fs = StoreFactory.NewFileSystem();
        var starts = CommitAndDrop(fs, 10);
        var middle = starts[4];
        var path = JournalFiles.PathOf("/store/journal", middle.FileNumber);
        using (var file = fs.Open(path, FileOpenMode.OpenExisting))
        {
            var b = new byte[1];
            file.Read(middle.Offset + 200, b);
            b[0] ^= 0x40;
            file.Write(middle.Offset + 200, b);
        }

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(path, error.File);
        Assert.Equal(middle.Offset, error.Offset);
        // The store is not half-opened: the lock is free for a second attempt after repair.
        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));
    }

    [Fact]
    public void Open_names_a_journal_file_cut_at_a_record_boundary_not_the_intact_file_after_it()
    {
        // The open reported the intact next file as "written and since changed" (D2 across files).
        using var fs = StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(StoreFactory.Options(fs, journalFileSize: 64 << 10));
        var random = new Random(7);
        for (var i = 0; i < 60; i++)
        {
            var value = new byte[3000];
            random.NextBytes(value);
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(B($"key{i:D4}"), value);
            tx.Commit();
        }

        env.CloseWithoutFlush();
        var header = Voron.Header.HeaderFile.ReadNewest(fs, new Voron.Header.StoreLayout("/store"))!.Value;
        var files = JournalFiles.List(fs, "/store/journal").Where(n => n >= header.JournalFile).ToList();
        Assert.True(files.Count >= 3, $"{files.Count} journal files to recover");
        var cutFile = files[^2];
        var path = JournalFiles.PathOf("/store/journal", cutFile);
        long cut;
        using (var file = fs.Open(path, FileOpenMode.OpenExisting))
        {
            var head = new byte[JournalRecord.HeaderSize];
            file.Read(0, head);
            cut = JournalRecord.RecordSize(System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(head.AsSpan(JournalRecord.StoredPayloadSizeOffset)));
            file.SetLength(cut); // the file's first record stays, the rest is gone
        }

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs, journalFileSize: 64 << 10)));
        Assert.Equal(path, error.File);
        Assert.Equal(cut, error.Offset);
        Assert.Contains("cut short", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Corrupted_data_file_page_is_detected_by_its_checksum_not_read_as_data()
    {
        using var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (var i = 0; i < 500; i++)
            {
                tree.Put(B($"key{i:D4}"), new byte[100]);
            }

            tx.Commit();
            env.FlushToDataFile();
        }

        using (var data = fs.Open("/store/voron.data", FileOpenMode.OpenExisting))
        {
            // Garble the middle of every page after the identity page and the first few.
            for (long page = 3; page * Constants.PageSize < data.Length; page++)
            {
                data.Write(page * Constants.PageSize + 4000, new byte[] { 0xDE, 0xAD, 0xBE, 0xEF });
            }
        }

        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        var error = Assert.Throws<CorruptionException>(() =>
        {
            using var read = reopened.BeginRead();
            var tree = read.OpenTree("t")!;
            for (var i = 0; i < 500; i++)
            {
                tree.Get(B($"key{i:D4}"));
            }
        });
        Assert.Contains("P4", error.Reason, StringComparison.Ordinal);
        Assert.Equal("/store/voron.data", error.File);
    }
}
