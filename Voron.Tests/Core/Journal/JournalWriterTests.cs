using Voron.Testing;

namespace Voron.Tests.Core.Journal;

public sealed class JournalWriterTests(ITestOutputHelper output)
{
    private const string Directory = "/store/journal";

    [Fact]
    public void Append_writes_each_record_with_one_positional_write_then_one_flush()
    {
        var fs = new RecordingFileSystem(new InMemoryFileSystem(16 << 20));
        using var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, JournalHarness.SmallFileSize);
        writer.Append(1, new byte[64], [new JournalPage(3, new byte[Constants.PageSize])]);
        fs.Log.Clear();

        var location = writer.Append(2, new byte[64], [new JournalPage(3, new byte[Constants.PageSize])]);

        var path = JournalFiles.PathOf(Directory, 0);
        Assert.Equal([$"Write {path} {location.Start.Offset} {location.Length}", $"FlushData {path}"], fs.Log);
    }

    [Fact]
    public void Append_zero_fills_preallocated_space_a_chunk_ahead_of_the_records_and_never_over_one()
    {
        const int chunk = JournalWriter.PrewriteChunk;
        var fs = new RecordingFileSystem(new InMemoryFileSystem(64 << 20));
        var path = JournalFiles.PathOf(Directory, 0);
        var page = new JournalPage(5, new byte[16 * Constants.PageSize]);
        JournalRecordLocation last;
        using (var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, 3L * chunk))
        {
            fs.Log.Clear();
            last = writer.Append(1, new byte[64], [page]);
            Assert.Equal([$"Write {path} 0 {chunk}", $"Write {path} 0 {last.Length}", $"FlushData {path}"], fs.Log);

            // The record that crosses into the second chunk gets it zeroed first, from the chunk
            // boundary (the records before it are never overwritten), and only once.
            while (last.End.Offset <= chunk)
            {
                fs.Log.Clear();
                last = writer.Append(writer.NextTransactionId, new byte[64], [page]);
            }

            Assert.Equal([$"Write {path} {chunk} {chunk}", $"Write {path} {last.Start.Offset} {last.Length}", $"FlushData {path}"], fs.Log);
        }

        // Resuming: what follows the log's end is not known to be written, so zeros go from there.
        using (var resumed = new JournalWriter(fs, Directory, JournalHarness.StoreId, last.End, last.End.Offset / last.Length + 1, 3L * chunk))
        {
            fs.Log.Clear();
            var next = resumed.Append(resumed.NextTransactionId, new byte[64], [page]);
            Assert.Equal([$"Write {path} {next.Start.Offset} {2 * chunk - next.Start.Offset}", $"Write {path} {next.Start.Offset} {next.Length}", $"FlushData {path}"], fs.Log);
        }
    }

    /// <summary>
    /// J10 as a model over random record sizes, from a few KiB to over the pooled-buffer limit, across
    /// rotations: every write other than a record's is zeros at or past the log's end (never over
    /// a record), and every record lands only on space zeroed before it (its fdatasync writes no
    /// inode). Records that borrow their buffers from the shared pool still decode as written.
    /// </summary>
    [Fact]
    public void Zero_fill_precedes_every_record_and_never_covers_one_for_random_record_sizes()
    {
        var seed = TestSeed.Next(output, nameof(Zero_fill_precedes_every_record_and_never_covers_one_for_random_record_sizes));
        var random = new Random(seed);
        var fs = new RecordingFileSystem(new InMemoryFileSystem(512 << 20));
        using var journal = new JournalHarness(seed, fileSize: 4L * JournalWriter.PrewriteChunk, fileSystem: fs);
        var zeroed = new Dictionary<string, List<(long Start, long End)>>();
        var logEnd = new Dictionary<string, long>();
        for (var i = 0; i < 40; i++)
        {
            var pages = random.Next(8) == 0 ? random.Next(1030, 1300) : random.Next(4) == 0 ? random.Next(120, 400) : random.Next(1, 24);
            fs.Log.Clear();
            var appended = journal.Append([journal.RandomPage(pages)]);
            var location = appended.Location;
            var path = JournalFiles.PathOf(journal.Directory, location.Start.FileNumber);
            var record = $"Write {path} {location.Start.Offset} {location.Length}";
            Assert.True(fs.Log.Contains(record), $"seed {seed}, record {i}: {string.Join("; ", fs.Log)}");
            var ranges = zeroed.TryGetValue(path, out var list) ? list : zeroed[path] = [];
            foreach (var line in fs.Log.Where(l => l.StartsWith($"Write {path} ", StringComparison.Ordinal) && l != record))
            {
                var parts = line.Split(' ');
                var (start, length) = (long.Parse(parts[2], CultureInfo.InvariantCulture), long.Parse(parts[3], CultureInfo.InvariantCulture));
                Assert.True(start >= logEnd.GetValueOrDefault(path), $"seed {seed}, record {i}: zeros at {start} over the log ending at {logEnd.GetValueOrDefault(path)}");
                ranges.Add((start, start + length));
            }

            var covered = Covered(ranges, location.Start.Offset, location.End.Offset);
            Assert.True(covered == location.Length, $"seed {seed}, record {i} ({location.Length} bytes): only {covered} bytes of its space were zeroed first");
            logEnd[path] = location.End.Offset;
        }

        journal.Recover(out var recovered);
        journal.AssertRecovered(recovered);
    }

    private static long Covered(List<(long Start, long End)> ranges, long start, long end)
    {
        long covered = 0;
        var at = start;
        foreach (var (s, e) in ranges.OrderBy(r => r.Start))
        {
            var from = Math.Max(s, at);
            var to = Math.Min(e, end);
            if (to > from)
            {
                covered += to - from;
                at = to;
            }
        }

        return covered;
    }

    [Fact]
    public void Append_places_records_at_aligned_offsets_with_zero_padding()
    {
        using var journal = new JournalHarness(seed: 50);

        var first = journal.Append(runs: 1, maxRunPages: 1);
        var second = journal.Append(runs: 2, maxRunPages: 1);

        // 128 header + 24 entry header + 8192 image = 8344 body bytes: 17 sectors of 508, padded to 24 sectors (12288 bytes).
        Assert.Equal(new JournalRecordLocation(new JournalPosition(0, 0), new JournalPosition(0, 12288)), first.Location);
        Assert.Equal(12288, second.Location.Start.Offset);
        Assert.Equal(0, second.Location.Length % JournalRecord.Alignment);
        var record = journal.ReadBytes(0, 0, 12288);
        JournalRecord.Unframe(record, 24 * 508);
        Assert.All(record.AsSpan(8344, (24 * 508) - 8344).ToArray(), b => Assert.Equal(0, b));
    }

    [Fact]
    public void Append_rotates_into_a_preallocated_file_whose_size_and_name_are_durable_before_the_record()
    {
        var fs = new RecordingFileSystem(new InMemoryFileSystem(16 << 20));
        using var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, JournalHarness.SmallFileSize);
        var page = new JournalPage(1, new byte[11 * Constants.PageSize]);
        writer.Append(1, new byte[64], [page]);
        writer.Append(2, new byte[64], [page]);
        fs.Log.Clear();

        var third = writer.Append(3, new byte[64], [page]);

        var path = JournalFiles.PathOf(Directory, 1);
        Assert.Equal(new JournalPosition(1, 0), third.Start);
        Assert.Equal(
            [$"Create {path}", $"Preallocate {path} {JournalHarness.SmallFileSize}", $"FlushData {path}", $"SyncDirectory {Directory}",
             $"Write {path} 0 {JournalHarness.SmallFileSize}", $"Write {path} 0 {third.Length}", $"FlushData {path}"],
            fs.Log);
    }

    [Fact]
    public void Append_gives_a_record_larger_than_the_file_size_a_file_of_its_own_size()
    {
        using var journal = new JournalHarness(seed: 51);
        journal.Append();

        var big = journal.Append([journal.RandomPage(40)]);

        Assert.Equal(new JournalPosition(1, 0), big.Location.Start);
        Assert.Equal(JournalRecord.RecordSize(JournalRecord.MeasurePayload(big.Pages)), big.Location.Length);
        Assert.Equal(big.Location.Length, journal.LengthOf(1));
        Assert.Equal(new JournalPosition(2, 0), journal.Append().Location.Start);
        Assert.Equal(journal.FileSize, journal.LengthOf(2));
    }

    [Fact]
    public void Append_rejects_a_transaction_id_other_than_the_next_one()
    {
        using var journal = new JournalHarness(seed: 52);
        journal.Append();

        var error = Assert.Throws<ArgumentException>(() => journal.Writer.Append(3, new byte[64], [journal.RandomPage(1)]));

        Assert.Contains("J1", error.Message, StringComparison.Ordinal);
        Assert.Equal(2, journal.Writer.NextTransactionId);
    }

    [Theory]
    [InlineData(0, 8192)]
    [InlineData(-4, 8192)]
    [InlineData(5, 0)]
    [InlineData(5, 100)]
    [InlineData(5, 8193)]
    public void Append_rejects_pages_that_are_not_whole_or_numbered_zero(long pageNumber, int imageLength)
    {
        using var journal = new JournalHarness(seed: 53);

        Assert.Throws<ArgumentException>(() => journal.Writer.Append(1, new byte[64], [new JournalPage(pageNumber, new byte[imageLength])]));
        journal.Append();
    }

    [Fact]
    public void Append_rejects_a_state_that_is_not_64_bytes()
    {
        using var journal = new JournalHarness(seed: 54);

        Assert.Throws<ArgumentException>(() => journal.Writer.Append(1, new byte[63], [journal.RandomPage(1)]));
    }

    [Fact]
    public void Append_accepts_a_transaction_without_pages()
    {
        using var journal = new JournalHarness(seed: 55);

        journal.Append([]);
        journal.Append();

        journal.Recover(out var records);
        journal.AssertRecovered(records);
    }

    [Fact]
    public void Append_refuses_everything_after_a_failed_flush()
    {
        var fs = new RecordingFileSystem(new InMemoryFileSystem(16 << 20));
        using var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, JournalHarness.SmallFileSize);
        fs.FailWhen = line => line.StartsWith("FlushData", StringComparison.Ordinal);

        Assert.Throws<IOException>(() => writer.Append(1, new byte[64], [new JournalPage(1, new byte[Constants.PageSize])]));
        var error = Assert.Throws<EnvironmentFailedException>(() => writer.Append(1, new byte[64], [new JournalPage(1, new byte[Constants.PageSize])]));

        Assert.IsType<IOException>(error.InnerException);
        Assert.Equal(1, writer.NextTransactionId);
    }

    [Fact]
    public void Constructor_deletes_journal_files_beyond_the_resume_position()
    {
        using var journal = new JournalHarness(seed: 56);
        var kept = journal.Append();
        journal.AppendUntilRotation();
        journal.AppendUntilRotation();
        journal.Writer.Dispose();

        using var writer = new JournalWriter(journal.FileSystem, journal.Directory, JournalHarness.StoreId, kept.Location.End, kept.TransactionId + 1, journal.FileSize);

        Assert.Equal([0L], JournalFiles.List(journal.FileSystem, journal.Directory));
        Assert.Equal(kept.Location.End, writer.Position);
    }

    [Fact]
    public void Constructor_finishes_the_preallocation_of_a_resume_file_left_short_by_a_crash()
    {
        using var fs = new InMemoryFileSystem(16 << 20);
        fs.Open(JournalFiles.PathOf(Directory, 0), FileOpenMode.CreateNew).Dispose();
        var recovered = JournalReader.Recover(fs, Directory, JournalHarness.StoreId, new JournalPosition(0, 0), 1, _ => { });

        using var writer = new JournalWriter(fs, Directory, JournalHarness.StoreId, recovered, JournalHarness.SmallFileSize);
        var location = writer.Append(1, new byte[64], [new JournalPage(1, new byte[Constants.PageSize])]);

        Assert.Equal(new JournalPosition(0, 0), location.Start);
        using var file = fs.Open(JournalFiles.PathOf(Directory, 0), FileOpenMode.OpenExisting);
        Assert.Equal(JournalHarness.SmallFileSize, file.Length);
    }

    [Fact]
    public void Constructor_creates_the_first_file_preallocated()
    {
        using var journal = new JournalHarness(seed: 57);

        Assert.Equal([0L], JournalFiles.List(journal.FileSystem, journal.Directory));
        Assert.Equal(journal.FileSize, journal.LengthOf(0));
    }

    [Fact]
    public void Append_writes_identical_files_for_identical_calls()
    {
        // J9: no clock, no randomness inside the journal.
        using var a = new JournalHarness(seed: 58);
        using var b = new JournalHarness(seed: 58);
        for (var i = 0; i < 30; i++)
        {
            a.Append();
            b.Append();
        }

        var filesA = a.Snapshot();
        var filesB = b.Snapshot();
        Assert.Equal(filesA.Keys, filesB.Keys);
        Assert.All(filesA.Keys, n => Assert.True(filesA[n].AsSpan().SequenceEqual(filesB[n])));
    }
}
