namespace Voron.Tests.Core.Journal;

/// <summary>
/// Crashes during a write leave a torn tail (F1 in IStorageFile.cs: sectors of the last write
/// kept, dropped or mixed): recovery discards it, and the writer resumes over it.
/// </summary>
public sealed class JournalReaderCrashTests(ITestOutputHelper output)
{
    public static TheoryData<string> TearPatterns => ["header only", "all but the header", "all but the last payload sector", "first half", "none", "random"];

    [Theory]
    [MemberData(nameof(TearPatterns))]
    public void Recover_discards_torn_tail_record(string pattern)
    {
        using var journal = new JournalHarness(seed: 20);
        for (var i = 0; i < 5; i++)
        {
            journal.Append();
        }

        var before = journal.Snapshot();
        var torn = journal.Append(runs: 3);
        var sectors = (int)(torn.Location.Length / JournalHarness.SectorSize);
        var lastPayload = JournalHarness.LastPayloadSector(torn);
        Func<int, bool> keep = pattern switch
        {
            "header only" => s => s == 0,
            "all but the header" => s => s != 0,
            "all but the last payload sector" => s => s != lastPayload,
            "first half" => s => s < sectors / 2,
            "none" => _ => false,
            _ => _ => journal.Random.Next(2) == 0,
        };
        Assert.False(journal.Tear(torn, before, keep), "the pattern must lose a payload sector");
        journal.Written.Remove(torn);

        var result = journal.Recover(out var records);

        journal.AssertRecovered(records);
        Assert.Equal(torn.Location.Start, result.End);
        Assert.Equal(torn.TransactionId - 1, result.LastTransactionId);
    }

    [Theory]
    [InlineData(JournalTailRecovery.DiscardTornWrite)]
    [InlineData(JournalTailRecovery.Strict)]
    [InlineData(JournalTailRecovery.DiscardAnyDamage)]
    public void A_last_record_whose_payload_sector_holds_garbage_is_damage_unless_any_damage_is_discarded(JournalTailRecovery mode)
    {
        using var journal = new JournalHarness(seed: 21);
        journal.Append();
        var torn = journal.Append(runs: 2);
        var garbage = new byte[JournalHarness.SectorSize];
        journal.Random.NextBytes(garbage);
        journal.WriteBytes(torn.Location.Start.FileNumber,
            torn.Location.Start.Offset + (JournalHarness.LastPayloadSector(torn) * JournalHarness.SectorSize), garbage);
        journal.Written.Remove(torn);

        if (mode != JournalTailRecovery.DiscardAnyDamage)
        {
            var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, mode: mode));
            Assert.Equal(torn.Location.Start.Offset, error.Offset);
            Assert.Contains($"record tx {torn.TransactionId} is damaged: sector {JournalHarness.LastPayloadSector(torn)}", error.Reason, StringComparison.Ordinal);
            return;
        }

        var result = journal.Recover(out var records, mode: mode);

        journal.AssertRecovered(records);
        Assert.Equal(torn.Location.Start, result.End);
    }

    [Fact]
    public void Strict_recovery_reports_a_torn_last_record()
    {
        using var journal = new JournalHarness(seed: 27);
        journal.Append();
        var before = journal.Snapshot();
        var torn = journal.Append(runs: 2);
        journal.Tear(torn, before, s => s < 3);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, mode: JournalTailRecovery.Strict));

        Assert.Equal(torn.Location.Start.Offset, error.Offset);
        Assert.Contains($"record tx {torn.TransactionId} is torn (sector 3", error.Reason, StringComparison.Ordinal);
        Assert.Contains("JournalTailRecovery.DiscardTornWrite", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Strict_recovery_reports_bytes_past_the_end_of_the_log_whose_header_sector_never_landed()
    {
        using var journal = new JournalHarness(seed: 28);
        journal.Append();
        var before = journal.Snapshot();
        var torn = journal.Append(runs: 2);
        journal.Tear(torn, before, s => s == 5);
        journal.Written.Remove(torn);

        var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _, mode: JournalTailRecovery.Strict));
        Assert.Equal(torn.Location.Start.Offset, error.Offset);
        Assert.Contains($"byte {torn.Location.Start.Offset + (5 * 512)} of", error.Reason, StringComparison.Ordinal);

        var result = journal.Recover(out var records); // the default discards it
        journal.AssertRecovered(records);
        Assert.Equal(torn.Location.Start, result.End);
        Assert.False(result.TailIsClean);
    }

    [Fact]
    public void Recover_then_the_writer_overwrites_the_torn_tail_and_later_records_recover()
    {
        using var journal = new JournalHarness(seed: 22);
        for (var i = 0; i < 4; i++)
        {
            journal.Append();
        }

        var before = journal.Snapshot();
        var torn = journal.Append(runs: 4);
        journal.Tear(torn, before, s => s < 3);
        journal.Written.Remove(torn);

        journal.Restart(journal.Recover(out _));
        Assert.Equal(torn.Location.Start, journal.Writer.Position);
        Assert.Equal(torn.TransactionId, journal.Writer.NextTransactionId);

        // A smaller record over the torn one leaves the torn one's tail bytes behind it.
        var rewritten = journal.Append(runs: 1, maxRunPages: 1);
        for (var i = 0; i < 6; i++)
        {
            journal.Append();
        }

        var result = journal.Recover(out var records);

        Assert.Equal(torn.Location.Start, rewritten.Location.Start);
        journal.AssertRecovered(records);
        Assert.Equal(journal.Writer.Position, result.End);
    }

    [Fact]
    public void A_flipped_bit_anywhere_in_the_header_of_the_last_record_is_damage_or_with_any_damage_discarded_the_end_of_the_log()
    {
        using var journal = new JournalHarness(seed: 23);
        journal.Append();
        journal.Append();
        var last = journal.Append();
        journal.Written.Remove(last);

        for (var bit = 0; bit < JournalRecord.HeaderSize * 8; bit++)
        {
            journal.FlipBit(last.Location.Start, bit);

            var error = Assert.Throws<CorruptionException>(() => journal.Recover(out _));
            Assert.Equal(last.Location.Start.Offset, error.Offset);
            var result = journal.Recover(out var records, mode: JournalTailRecovery.DiscardAnyDamage);
            journal.AssertRecovered(records);
            Assert.Equal(last.Location.Start, result.End);

            journal.FlipBit(last.Location.Start, bit);
        }
    }

    [Fact]
    public void Recover_discards_a_torn_record_at_the_start_of_a_new_file_and_the_writer_resumes_there()
    {
        using var journal = new JournalHarness(seed: 24);
        var before = journal.Snapshot();
        var torn = journal.AppendUntilRotation();
        journal.Tear(torn, before, s => s == 0);
        journal.Written.Remove(torn);

        var result = journal.Recover(out var records);

        journal.AssertRecovered(records);
        Assert.Equal(new JournalPosition(torn.Location.Start.FileNumber, 0), result.End);

        journal.Restart(result);
        journal.Append();
        journal.Append();
        var after = journal.Recover(out var again);
        journal.AssertRecovered(again);
        Assert.Equal(torn.TransactionId + 1, after.LastTransactionId);
    }

    [Fact]
    public void Recover_discards_a_record_that_never_reached_a_new_file_and_the_writer_reuses_its_number()
    {
        using var journal = new JournalHarness(seed: 25);
        var before = journal.Snapshot();
        var lost = journal.AppendUntilRotation();
        journal.Tear(lost, before, _ => false);
        journal.Written.Remove(lost);
        var previous = journal.Written[^1];

        var result = journal.Recover(out var records);

        journal.AssertRecovered(records);
        Assert.Equal(previous.Location.End, result.End);

        // The preallocated next file holds nothing: the writer deletes it and rotates into it again.
        journal.Restart(result);
        var again = journal.AppendUntilRotation();
        Assert.Equal(lost.Location.Start.FileNumber, again.Location.Start.FileNumber);
        journal.Recover(out var all);
        journal.AssertRecovered(all);
    }

    [Fact]
    public void Recover_continues_in_the_next_file_when_a_torn_try_was_rewritten_there_after_a_rotation()
    {
        // The torn record's intact header stays in the old file, with tx = E and a bad payload;
        // the rewritten transaction (bigger, so it rotated) starts the next file.
        using var journal = new JournalHarness(seed: 26);
        journal.Append();
        var before = journal.Snapshot();
        var torn = journal.Append(runs: 1, maxRunPages: 1);
        journal.Tear(torn, before, s => s == 0);
        journal.Written.Remove(torn);
        journal.Restart(journal.Recover(out _));

        var rewritten = journal.Append([journal.RandomPage(31)]);
        journal.Append();

        Assert.Equal(torn.TransactionId, rewritten.TransactionId);
        Assert.Equal(new JournalPosition(torn.Location.Start.FileNumber + 1, 0), rewritten.Location.Start);
        var result = journal.Recover(out var records);
        journal.AssertRecovered(records);
        Assert.Equal(journal.Writer.Position, result.End);
        output.WriteLine($"recovered {result.RecordCount} records ending at {result.End}");
    }

    [Theory]
    [InlineData(100)]
    [InlineData(101)]
    [InlineData(102)]
    [InlineData(103)]
    public void Recover_finds_every_durable_record_after_repeated_random_crashes(int seed)
    {
        output.WriteLine($"seed {seed}");
        using var journal = new JournalHarness(seed);
        for (var crash = 0; crash < 15; crash++)
        {
            var appends = journal.Random.Next(0, 8);
            for (var i = 0; i < appends; i++)
            {
                journal.Append();
            }

            var before = journal.Snapshot();
            var torn = journal.Append();
            if (!journal.Tear(torn, before, _ => journal.Random.Next(3) == 0))
            {
                journal.Written.Remove(torn);
            }

            var result = journal.Recover(out var records);

            journal.AssertRecovered(records);
            journal.Restart(result);
        }
    }
}
