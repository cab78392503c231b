namespace Voron.Tests.Core.Journal;

/// <summary>
/// Released journal files are deleted, never reused (J6), and a record is bound to its store and
/// file: bytes of another file, another store or a stored value never pass for one.
/// </summary>
public sealed class JournalReleaseTests
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

    private static byte[] ReadAll(JournalHarness journal, long number) => journal.ReadBytes(number, 0, (int)journal.LengthOf(number));

    [Fact]
    public void ReleaseBefore_deletes_every_file_before_the_synced_position()
    {
        using var journal = FourFiles(seed: 60);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 3).Location.End;

        journal.Writer.ReleaseBefore(synced);

        Assert.Equal([3L], JournalFiles.List(journal.FileSystem, journal.Directory));
        Assert.Empty(JournalFiles.ListSpares(journal.FileSystem, journal.Directory));
    }

    [Fact]
    public void ReleaseBefore_rejects_a_position_past_what_was_written()
    {
        using var journal = new JournalHarness(seed: 62);
        journal.Append();

        Assert.Throws<ArgumentOutOfRangeException>(() => journal.Writer.ReleaseBefore(new JournalPosition(1, 0)));
    }

    [Fact]
    public void Rotation_after_a_release_creates_a_new_file_that_reads_as_zeros_past_its_records()
    {
        using var journal = FourFiles(seed: 63);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        journal.Writer.ReleaseBefore(synced.Location.End);

        var first = journal.AppendUntilRotation(runs: 1, maxRunPages: 1);
        journal.Append(runs: 1, maxRunPages: 1);

        Assert.Equal(4, first.Location.Start.FileNumber);
        Assert.Equal([2L, 3L, 4L], JournalFiles.List(journal.FileSystem, journal.Directory));
        var rest = journal.ReadBytes(4, journal.Writer.Position.Offset, (int)(journal.LengthOf(4) - journal.Writer.Position.Offset));
        Assert.False(rest.AsSpan().ContainsAnyExcept((byte)0), "J10: past the end of the log a journal file holds zeros only");
        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);
        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal(journal.Writer.Position, result.End);
        Assert.True(result.TailIsClean);
    }

    [Fact]
    public void Constructor_deletes_the_spares_format_version_1_kept_for_reuse()
    {
        using var journal = new JournalHarness(seed: 64);
        journal.Append();
        using (var spare = journal.FileSystem.Open(JournalFiles.SparePathOf(journal.Directory, 7), FileOpenMode.CreateNew))
        {
            spare.Write(0, new byte[] { 1, 2, 3 });
        }

        journal.Restart(journal.Recover(out _));

        Assert.Empty(JournalFiles.ListSpares(journal.FileSystem, journal.Directory));
    }

    [Fact]
    public void Records_of_a_file_that_reappears_under_another_number_are_damage_not_records()
    {
        // Format 1 renamed released files to spares and reused them. A record is now bound to its
        // file number, so such bytes — here file 0's records under number 4, where the next record
        // would start — are never an intact header there, nor a proof (D5): the default reports
        // them (the writer never leaves anything but a record or zeros there), DiscardAnyDamage
        // ends the log before them.
        using var journal = FourFiles(seed: 65);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        var old = ReadAll(journal, 0);
        journal.Writer.ReleaseBefore(synced.Location.End);
        using (var file = journal.FileSystem.Open(journal.PathOf(4), FileOpenMode.CreateNew))
        {
            file.Write(0, old);
        }

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, synced.Location.End, synced.TransactionId + 1));
        Assert.Equal(journal.PathOf(4), error.File);
        Assert.Equal(0, error.Offset);

        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1, JournalTailRecovery.DiscardAnyDamage);

        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal(journal.Writer.Position, result.End);
        journal.Restart(result);
        Assert.False(journal.FileSystem.FileExists(journal.PathOf(4)), "J5: files past the end are deleted");
    }

    [Fact]
    public void Recover_reads_a_record_of_another_store_as_damage_not_as_a_record()
    {
        using var journal = new JournalHarness(seed: 66);
        journal.Append();
        var last = journal.Append();
        var bytes = journal.ReadBytes(0, last.Location.Start.Offset, (int)last.Location.Length);
        var bodyLength = bytes.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize;
        JournalRecord.Unframe(bytes, bodyLength);
        var header = bytes.AsSpan(0, JournalRecord.HeaderSize);
        BitConverter.TryWriteBytes(header[JournalRecord.HeaderChecksumOffset..], JournalRecord.ComputeHeaderChecksum(header, JournalHarness.StoreId + 1, 0));
        JournalRecord.Frame(bytes, bodyLength, JournalRecord.SectorSeed(JournalHarness.StoreId + 1, 0, last.TransactionId));
        journal.WriteBytes(0, last.Location.Start.Offset, bytes);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));

        Assert.Equal(last.Location.Start.Offset, error.Offset);
        Assert.Contains("neither an intact record header nor zeros", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Recover_reads_a_released_file_that_reappeared_after_a_crash_as_nothing()
    {
        // The directory sync after a release did not happen: file 0 is back, but recovery starts
        // past it and never reads it; the next release removes it again.
        using var journal = FourFiles(seed: 67);
        var synced = journal.Written.Last(r => r.Location.Start.FileNumber == 2);
        var old = ReadAll(journal, 0);
        journal.Writer.ReleaseBefore(synced.Location.End);
        using (var file = journal.FileSystem.Open(journal.PathOf(0), FileOpenMode.CreateNew))
        {
            file.Write(0, old);
        }

        var result = journal.Recover(out var records, synced.Location.End, synced.TransactionId + 1);

        journal.AssertRecovered(records, from: journal.Written.IndexOf(synced) + 1);
        Assert.Equal([2L, 3L], result.FileNumbers);
        journal.Restart(result);
        journal.Writer.ReleaseBefore(synced.Location.End);
        Assert.Equal([2L, 3L], JournalFiles.List(journal.FileSystem, journal.Directory));
    }
}
