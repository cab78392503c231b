namespace Voron.Tests.Core.Journal;

/// <summary>
/// Leaving a journal file before it is full (J14): the end of the log in a left file and the start
/// of the next file are the same recovery start, so a header may name either, and the left file
/// can be released at once.
/// </summary>
public sealed class JournalStartNewFileTests(ITestOutputHelper output)
{
    [Fact]
    public void StartNewFile_refuses_a_file_without_a_record_and_a_file_already_left()
    {
        using var journal = new JournalHarness(seed: 140);
        Assert.False(journal.Writer.StartNewFile(0)); // TR2: nothing written yet
        journal.Append();
        Assert.True(journal.Writer.StartNewFile(0));
        Assert.Equal(new JournalPosition(1, 0), journal.Writer.Position);
        Assert.False(journal.Writer.StartNewFile(0)); // the writer is in file 1 now
        Assert.False(journal.Writer.StartNewFile(1)); // and file 1 holds no record
        Assert.Equal([0L, 1L], JournalFiles.List(journal.FileSystem, journal.Directory));
    }

    [Fact]
    public void Continuation_moves_only_the_end_of_a_left_files_log()
    {
        using var journal = new JournalHarness(seed: 141);
        var first = journal.Append();
        var last = journal.Append();
        Assert.Equal(last.Location.End, journal.Writer.Continuation(last.Location.End)); // the writer is still in file 0
        journal.Writer.StartNewFile(0);
        Assert.Equal(new JournalPosition(1, 0), journal.Writer.Continuation(last.Location.End));
        Assert.Equal(first.Location.End, journal.Writer.Continuation(first.Location.End)); // a record follows it in file 0
    }

    /// <summary>
    /// The property behind J14, over random appends, files left early and size rotations: from
    /// the continuation of every record's end, recovery finds exactly the records after it and the
    /// same end of the log as from the end itself; and releasing every file before the
    /// continuation (as the flusher does) leaves a journal that still recovers all of them.
    /// </summary>
    [Fact]
    public void The_continuation_of_a_records_end_is_the_same_recovery_start_after_random_early_rotations()
    {
        var seed = TestSeed.Next(output, nameof(The_continuation_of_a_records_end_is_the_same_recovery_start_after_random_early_rotations));
        using var journal = new JournalHarness(seed);
        var random = journal.Random;
        for (var i = 0; i < 120; i++)
        {
            journal.Append(maxRunPages: random.Next(1, 6));
            if (random.Next(4) == 0)
            {
                Assert.True(journal.Writer.StartNewFile(journal.Writer.Position.FileNumber));
            }
        }

        var endOfLog = journal.Recover(out _).End;
        for (var i = 0; i < journal.Written.Count; i++)
        {
            var end = journal.Written[i].Location.End;
            var start = journal.Writer.Continuation(end);
            Assert.True(start == end || (start.FileNumber == end.FileNumber + 1 && start.Offset == 0), $"tx {journal.Written[i].TransactionId}: {end} -> {start}");
            var result = journal.Recover(out var records, start, journal.Written[i].TransactionId + 1);
            Assert.Equal(journal.Writer.Continuation(endOfLog), journal.Writer.Continuation(result.End));
            journal.AssertRecovered(records, from: i + 1);
        }

        var lastEnd = journal.Written[^1].Location.End;
        journal.Writer.StartNewFile(journal.Writer.Position.FileNumber);
        var released = journal.Writer.Continuation(lastEnd);
        Assert.Equal(journal.Writer.Position, released);
        journal.Writer.ReleaseBefore(released);
        Assert.Equal([released.FileNumber], JournalFiles.List(journal.FileSystem, journal.Directory));
        var after = journal.Recover(out var none, released, journal.Written[^1].TransactionId + 1);
        Assert.Empty(none);
        Assert.Equal(released, after.End);
        output.WriteLine($"{journal.Written.Count} records over {released.FileNumber} files left, seed {seed}");
    }
}
