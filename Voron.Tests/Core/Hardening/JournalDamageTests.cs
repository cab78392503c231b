namespace Voron.Tests.Core.Hardening;

/// <summary>
/// Damage to a journal record that was durable must be reported, in every durability mode, and rot
/// in the last record must not pass for a torn write.
/// </summary>
public sealed class JournalDamageTests
{
    private const string JournalDirectory = "/store/journal";

    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>Commits <paramref name="count"/> transactions of incompressible values and drops the store without a flush; returns each record's extent.</summary>
    private static List<(JournalPosition Start, JournalPosition End)> CommitAndDrop(InMemoryFileSystem fs, int count, DurabilityMode mode, long journalFileSize)
    {
        var options = StoreFactory.Options(fs, journalFileSize: journalFileSize);
        options.Durability = mode;
        options.LazyFlushInterval = TimeSpan.FromHours(1); // only rotation syncs the journal
        var env = StorageEnvironment.Open(options);
        var records = new List<(JournalPosition, JournalPosition)>();
        var random = new Random(count);
        for (var i = 0; i < count; i++)
        {
            var before = env.Journal.Position;
            using (var tx = env.BeginWrite())
            {
                var value = new byte[3000];
                random.NextBytes(value);
                tx.CreateTree("t").Put(B($"key{i:D4}"), value);
                tx.Commit();
            }

            var end = env.Journal.Position;
            records.Add((end.FileNumber == before.FileNumber ? before : end with { Offset = 0 }, end));
        }

        env.CloseWithoutFlush();
        return records;
    }

    private static StorageEnvironmentOptions Reopen(InMemoryFileSystem fs, DurabilityMode mode, long journalFileSize)
    {
        var options = StoreFactory.Options(fs, journalFileSize: journalFileSize);
        options.Durability = mode;
        return options;
    }

    private static byte[] ReadJournal(InMemoryFileSystem fs, long fileNumber)
    {
        using var file = fs.Open(JournalFiles.PathOf(JournalDirectory, fileNumber), FileOpenMode.OpenExisting);
        var bytes = new byte[file.Length];
        file.Read(0, bytes);
        return bytes;
    }

    private static void Damage(InMemoryFileSystem fs, JournalPosition at, Action<byte[]> edit, int length)
    {
        using var file = fs.Open(JournalFiles.PathOf(JournalDirectory, at.FileNumber), FileOpenMode.OpenExisting);
        var bytes = new byte[length];
        file.Read(at.Offset, bytes);
        edit(bytes);
        file.Write(at.Offset, bytes);
    }

    /// <summary>
    /// What broke: in lazy mode, records are written without a flush and marked Lazy, and recovery
    /// ignored Lazy records after a broken one (D4), treating the broken one as a torn tail. So one
    /// flipped bit in an old record — one a rotation had long made durable — made the store open at
    /// the transaction before it, dropping every later acknowledged commit, and then zeroed the
    /// rest of the journal file, destroying the evidence. Fixed by a checksum per sector of each
    /// record (a flipped bit leaves a written sector wrong, which a torn write cannot: rot is
    /// corruption in every mode) and by a DurableThrough field in each record header (the last
    /// transaction the writer knew durable), which proves an earlier broken record had been durable
    /// however it was damaged.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Lazy_mode_reports_damage_to_a_record_a_rotation_had_made_durable(bool zeroWholeSector)
    {
        using var fs = StoreFactory.NewFileSystem();
        const long fileSize = 64 * 1024;
        var records = CommitAndDrop(fs, 40, DurabilityMode.Lazy, fileSize);
        Assert.True(records[^1].Start.FileNumber >= 3, "the records span several journal files");

        // A record of the first file, which the rotation to the second file flushed.
        var victim = records.First(r => r.Start.FileNumber == records[0].Start.FileNumber && r.Start.Offset > 0);
        Damage(fs, victim.Start, bytes =>
        {
            if (zeroWholeSector)
            {
                Array.Clear(bytes, 1024, 512); // looks like a sector the disk never wrote
            }
            else
            {
                bytes[1500] ^= 0x10;
            }
        }, 4096);
        var before = ReadJournal(fs, victim.Start.FileNumber);

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(Reopen(fs, DurabilityMode.Lazy, fileSize)).Dispose());
        Assert.Equal(JournalFiles.PathOf(JournalDirectory, victim.Start.FileNumber), error.File);
        Assert.Equal(victim.Start.Offset, error.Offset);
        Assert.Equal(before, ReadJournal(fs, victim.Start.FileNumber)); // the evidence is kept
    }

    /// <summary>
    /// What broke: a bit flipped in the last journal record of a store made it look like a torn
    /// write, so the store opened one acknowledged commit short, silently. A torn write leaves the
    /// sectors the disk did not write as they were — zeros, since the journal is zero-filled ahead
    /// of its records (J10) — while rot leaves a written sector wrong. Fixed by a checksum per
    /// 512-byte sector of each record: a sector that is neither intact nor zeros is rot, reported
    /// as corruption.
    /// </summary>
    [Fact]
    public void A_flipped_bit_in_the_last_record_is_corruption_not_a_torn_write()
    {
        using var fs = StoreFactory.NewFileSystem();
        var records = CommitAndDrop(fs, 10, DurabilityMode.Durable, 1 << 20);
        var last = records[^1];
        Damage(fs, last.Start, bytes => bytes[2000] ^= 0x01, 4096);

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(Reopen(fs, DurabilityMode.Durable, 1 << 20)).Dispose());
        Assert.Equal(JournalFiles.PathOf(JournalDirectory, last.Start.FileNumber), error.File);
        Assert.Equal(last.Start.Offset, error.Offset);
    }

    /// <summary>The other half of the distinction: sectors of the last record that read as zeros are a torn write, discarded.</summary>
    [Fact]
    public void Zeroed_sectors_in_the_last_record_are_a_torn_write_and_drop_only_that_record()
    {
        using var fs = StoreFactory.NewFileSystem();
        var records = CommitAndDrop(fs, 10, DurabilityMode.Durable, 1 << 20);
        Damage(fs, records[^1].Start, bytes => Array.Clear(bytes, 512, bytes.Length - 512), 4096);

        using var env = StorageEnvironment.Open(Reopen(fs, DurabilityMode.Durable, 1 << 20));
        using var read = env.BeginRead();
        var tree = read.OpenTree("t")!;
        Assert.Equal(9, tree.Count);
        Assert.Null(tree.Get(B("key0009")));
    }
}
