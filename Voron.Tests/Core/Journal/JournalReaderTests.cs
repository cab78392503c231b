using Voron.Platform.Posix;

namespace Voron.Tests.Core.Journal;

/// <summary>Recovery of what <see cref="JournalWriter"/> wrote: round trips, rotation, start positions.</summary>
public sealed class JournalReaderTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Recover_returns_every_record_identically_when_the_writer_wrote_them(int seed)
    {
        output.WriteLine($"seed {seed}");
        using var journal = new JournalHarness(seed);
        for (var i = 0; i < 60; i++)
        {
            journal.Append();
        }

        var result = journal.Recover(out var records);

        journal.AssertRecovered(records);
        Assert.Equal(60, result.RecordCount);
        Assert.Equal(60, result.LastTransactionId);
        Assert.Equal(journal.Writer.Position, result.End);
        Assert.True(result.FileNumbers.Count > 1, "60 records of up to 12 pages span several 256 KiB files");
        Assert.Equal(Enumerable.Range(0, result.FileNumbers.Count).Select(n => (long)n), result.FileNumbers);
    }

    [Fact]
    public void Recover_follows_rotation_across_files_including_a_record_larger_than_the_file_size()
    {
        using var journal = new JournalHarness(seed: 10);
        journal.AppendUntilRotation();
        journal.Append();

        // 40 pages = 320 KiB of images: more than a 256 KiB file holds.
        var big = journal.Append([journal.RandomPage(30), journal.RandomPage(10)]);
        var after = journal.Append();

        Assert.Equal(0, big.Location.Start.Offset);
        Assert.Equal(JournalRecord.AlignUp(big.Location.Length), journal.LengthOf(big.Location.Start.FileNumber));
        Assert.Equal(big.Location.Start.FileNumber + 1, after.Location.Start.FileNumber);
        var result = journal.Recover(out var records);
        journal.AssertRecovered(records);
        Assert.Equal(after.Location.End, result.End);
    }

    [Fact]
    public void Recover_starts_at_a_mid_file_position_and_expected_transaction()
    {
        using var journal = new JournalHarness(seed: 11);
        for (var i = 0; i < 20; i++)
        {
            journal.Append(runs: 1, maxRunPages: 1);
        }

        var synced = journal.Written[6];
        Assert.NotEqual(0, synced.Location.End.Offset);

        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);

        journal.AssertRecovered(records, from: 7);
        Assert.Equal(20, result.LastTransactionId);
    }

    [Fact]
    public void Recover_returns_the_start_when_the_journal_directory_is_empty()
    {
        using var journal = new JournalHarness(seed: 12);
        var records = 0;

        var result = JournalReader.Recover(journal.FileSystem, "/elsewhere", JournalHarness.StoreId, new JournalPosition(0, 0), 41, _ => records++);

        Assert.Equal(0, records);
        Assert.Empty(result.FileNumbers);
        Assert.Equal(40, result.LastTransactionId);
        Assert.Equal(new JournalPosition(0, 0), result.End);
    }

    [Fact]
    public void Recover_returns_the_start_when_nothing_was_written_after_it()
    {
        using var journal = new JournalHarness(seed: 13);
        var last = journal.Append();

        var result = journal.Recover(out var records, last.Location.End, last.TransactionId + 1);

        Assert.Empty(records);
        Assert.Equal(last.Location.End, result.End);
        Assert.Equal(last.TransactionId, result.LastTransactionId);
    }

    [Fact]
    public void Recover_continues_after_a_restart_and_more_appends()
    {
        using var journal = new JournalHarness(seed: 14);
        for (var i = 0; i < 10; i++)
        {
            journal.Append();
        }

        journal.Restart(journal.Recover(out _));
        for (var i = 0; i < 10; i++)
        {
            journal.Append();
        }

        var result = journal.Recover(out var records);

        journal.AssertRecovered(records);
        Assert.Equal(20, result.LastTransactionId);
    }

    [Fact]
    public void Recover_round_trips_through_real_files()
    {
        using var directory = new TempDirectory();
        var path = directory.Combine("journal");
        using (var journal = new JournalHarness(seed: 15, fileSystem: PosixFileSystem.Instance, directory: path))
        {
            for (var i = 0; i < 40; i++)
            {
                journal.Append();
            }

            journal.Writer.Dispose();
            var result = journal.Recover(out var records);

            journal.AssertRecovered(records);
            Assert.True(result.FileNumbers.Count > 1);
            Assert.All(result.FileNumbers, n => Assert.True(File.Exists(journal.PathOf(n))));
        }
    }

    [Fact]
    public void Recover_rejects_a_start_offset_that_is_not_aligned()
    {
        using var journal = new JournalHarness(seed: 16);

        Assert.Throws<ArgumentOutOfRangeException>(() => journal.Recover(out _, new JournalPosition(0, 100), 1));
    }

    [Fact]
    public void Recover_throws_corruption_when_the_start_file_is_missing_at_a_nonzero_offset()
    {
        using var journal = new JournalHarness(seed: 17);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, new JournalPosition(5, 8192), 1));

        Assert.Equal(journal.PathOf(5), error.File);
        Assert.Contains("missing", error.Reason, StringComparison.Ordinal);
    }
}
