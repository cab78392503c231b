using Voron.Journal;

namespace Voron.Tests.Journal;

/// <summary>
/// Released files become spares and later journal files again, still holding their old records
/// (J6): recovery must read those as the end of the log, never as data or corruption.
/// </summary>
public sealed class JournalRecyclingTests
{
    /// <summary>Fills files 0..3 with one-page records (12288 bytes each, so 21 per 256 KiB file).</summary>
    private static JournalHarness FourFiles(int seed)
    {
        var journal = new JournalHarness(seed);
        while (journal.Writer.Position.FileNumber < 3 || journal.Writer.Position.Offset < 5 * 12288)
        {
            journal.Append(runs: 1, maxRunPages: 1);
        }

        return journal;
    }

    [Fact]
    public void ReleaseBefore_keeps_at_most_two_spares_and_deletes_the_rest()
    {
        using var journal = FourFiles(seed: 60);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 3).Location.End;

        journal.Writer.ReleaseBefore(synced);

        Assert.Equal([3L], JournalFiles.List(journal.FileSystem, journal.Directory));
        Assert.Equal([0L, 1L], JournalFiles.ListSpares(journal.FileSystem, journal.Directory));
    }

    [Fact]
    public void ReleaseBefore_deletes_instead_of_keeping_a_file_of_another_size()
    {
        using var journal = new JournalHarness(seed: 61);
        journal.Append();
        journal.Append([journal.RandomPage(40)]);
        var after = journal.Append();

        journal.Writer.ReleaseBefore(after.Location.End);

        Assert.Equal([2L], JournalFiles.List(journal.FileSystem, journal.Directory));
        Assert.Equal([0L], JournalFiles.ListSpares(journal.FileSystem, journal.Directory));
    }

    [Fact]
    public void ReleaseBefore_rejects_a_position_past_what_was_written()
    {
        using var journal = new JournalHarness(seed: 62);
        journal.Append();

        Assert.Throws<ArgumentOutOfRangeException>(() => journal.Writer.ReleaseBefore(new JournalPosition(1, 0)));
    }

    [Fact]
    public void Recover_treats_stale_records_of_a_recycled_file_as_end_of_log()
    {
        using var journal = FourFiles(seed: 63);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        journal.Writer.ReleaseBefore(synced.Location.End);

        // Rotate into a spare (file 0's bytes, now file 4) and write a few records into it: the
        // slot after the last one holds a stale record of file 0 with an intact header.
        var reused = journal.AppendUntilRotation(runs: 1, maxRunPages: 1);
        journal.Append(runs: 1, maxRunPages: 1);
        journal.Append(runs: 1, maxRunPages: 1);
        Assert.Equal(4, reused.Location.Start.FileNumber);
        Assert.Equal([1L], JournalFiles.ListSpares(journal.FileSystem, journal.Directory));
        var stale = journal.ReadBytes(4, journal.Writer.Position.Offset, JournalRecord.HeaderSize);
        Assert.True(JournalRecordHeader.TryRead(stale, out var staleHeader));
        Assert.True(staleHeader.TransactionId < reused.TransactionId);

        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);

        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal(journal.Writer.Position, result.End);
        Assert.Equal([2L, 3L, 4L], result.FileNumbers);
    }

    [Fact]
    public void Recover_continues_into_the_next_file_after_a_stale_slot_of_a_recycled_file()
    {
        using var journal = FourFiles(seed: 66);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        journal.Writer.ReleaseBefore(synced.Location.End);

        // File 4 is file 0 recycled, with a stale record every 12288 bytes. Five one-page records
        // end at 61440, on a stale header; a 25-page record (208896 bytes) does not fit in the
        // rest, so the writer leaves that stale slot behind and rotates to file 5.
        Assert.Equal(new JournalPosition(4, 0), journal.AppendUntilRotation(runs: 1, maxRunPages: 1).Location.Start);
        for (var i = 0; i < 4; i++)
        {
            journal.Append(runs: 1, maxRunPages: 1);
        }

        Assert.Equal(new JournalPosition(4, 61440), journal.Writer.Position);
        Assert.True(JournalRecordHeader.TryRead(journal.ReadBytes(4, 61440, JournalRecord.HeaderSize), out var stale));
        var rotated = journal.Append([journal.RandomPage(25)]);
        Assert.Equal(new JournalPosition(5, 0), rotated.Location.Start);
        Assert.True(stale.TransactionId < rotated.TransactionId);

        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);

        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal(rotated.Location.End, result.End);
    }

    [Fact]
    public void Recover_treats_a_spare_renamed_into_place_before_its_first_record_as_end_of_log()
    {
        using var journal = FourFiles(seed: 64);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        journal.Writer.ReleaseBefore(synced.Location.End);
        var end = journal.Writer.Position;

        // The crash came after the rotation renamed a spare to file 4, before its record was durable.
        journal.FileSystem.MoveFile(JournalFiles.SparePathOf(journal.Directory, 0), journal.PathOf(4));
        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);

        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal(end, result.End);

        journal.Restart(result);
        Assert.False(journal.FileSystem.FileExists(journal.PathOf(4)));
        journal.AppendUntilRotation();
        journal.Append();
        journal.Recover(out var all, synced.Location.End, synced.TransactionId + 1);
        journal.AssertRecovered(all, from: journal.Written.IndexOf(synced) + 1);
    }

    [Fact]
    public void Recover_reads_a_released_file_that_reappeared_after_a_crash_as_nothing()
    {
        // The directory sync after a release did not happen: file 0 is back, but recovery starts
        // past it and never reads it; the next release removes it again.
        using var journal = FourFiles(seed: 65);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        journal.Writer.ReleaseBefore(synced.Location.End);
        journal.FileSystem.MoveFile(JournalFiles.SparePathOf(journal.Directory, 0), journal.PathOf(0));

        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);

        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal([2L, 3L], result.FileNumbers);
        journal.Restart(result);
        journal.Writer.ReleaseBefore(synced.Location.End);
        Assert.Equal([2L, 3L], JournalFiles.List(journal.FileSystem, journal.Directory));
    }
}
