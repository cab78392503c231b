using Voron.Header;

namespace Voron.Tests.Core.Inspect;

/// <summary>
/// <see cref="StorageEnvironment.Inspect"/> on real store directories: what it reports for a new,
/// a cleanly closed, a crashed and a damaged store (SI3..SI5), what it refuses (SI4), and that it
/// changes nothing and locks nothing, even while the store is open (SI1).
/// </summary>
public sealed class InspectTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    private string Store => _directory.Combine("store");

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void Inspect_describes_a_new_store_closed_cleanly()
    {
        var before = DateTimeOffset.UtcNow.AddSeconds(-1);
        StorageEnvironment.Open(InspectStores.Options(Store)).Dispose();

        var info = StorageEnvironment.Inspect(Store);

        Assert.Equal(Store, info.Directory);
        Assert.Equal(3, info.FormatVersion);
        Assert.Equal(8192, info.PageSize);
        Assert.Matches("^[0-9a-f]{16}$", info.StoreId);
        Assert.Equal(HeaderFile.ReadNewest(Voron.Platform.ReadOnly.ReadOnlyFileSystem.Instance, new StoreLayout(Store))!.Value.StoreId.ToString("x16"), info.StoreId);
        Assert.True(info.HeaderRevision >= 1);
        Assert.Equal(0, info.LastSyncedTransactionId);
        Assert.Equal(0, info.LastTransactionId);
        Assert.Equal(0, info.JournalTransactions);
        Assert.True(info.ClosedCleanly);
        Assert.Empty(info.Problems);
        Assert.Contains(info.Files, f => f.Name == "voron.data" && f.Bytes >= 8192);
        Assert.Contains(info.Files, f => f.Name == "headers.one" && f.Bytes == 512);
        Assert.Contains(info.Files, f => f.Name == "voron.lock" && f.Bytes > 0);
        Assert.All(info.JournalFiles, j => Assert.Contains(info.Files, f => f.Name == $"journal/{j.Number:D19}.journal" && f.Bytes == j.Bytes));

        // The lock file names the last opener, though nobody holds it now.
        Assert.False(info.Lock.IsHeld);
        Assert.Equal(Environment.ProcessId, info.Lock.ProcessId);
        Assert.False(string.IsNullOrEmpty(info.Lock.ProcessName));
        Assert.Equal(DurabilityMode.Durable, info.Lock.Durability);
        Assert.InRange(info.Lock.OpenedAt!.Value, before, DateTimeOffset.UtcNow.AddSeconds(1));
    }

    [Fact]
    public void Inspect_of_a_cleanly_closed_store_finds_every_transaction_synced_and_nothing_in_the_journal()
    {
        InspectStores.Create(Store, commits: 7, clean: true);

        var info = StorageEnvironment.Inspect(Store);

        Assert.Equal(7, info.LastSyncedTransactionId);
        Assert.Equal(7, info.LastTransactionId);
        Assert.Equal(0, info.JournalTransactions);
        Assert.True(info.ClosedCleanly);
        Assert.Empty(info.Problems);
        Assert.DoesNotContain(info.JournalFiles, j => j.State == "active"); // nobody writes
    }

    [Fact]
    public void Inspect_of_a_store_whose_process_died_counts_the_transactions_an_open_would_replay()
    {
        InspectStores.Create(Store, commits: 9, clean: false); // a kill: no final flush

        var info = StorageEnvironment.Inspect(Store);

        Assert.Equal(0, info.LastSyncedTransactionId); // no background flush ran
        Assert.Equal(9, info.LastTransactionId);
        Assert.Equal(9, info.JournalTransactions);
        Assert.False(info.ClosedCleanly);
        Assert.Empty(info.Problems);
        Assert.Contains(info.JournalFiles, j => j.State == "needed");
        using var env = StorageEnvironment.Open(InspectStores.Options(Store));
        Assert.Equal(info.LastTransactionId, env.LastCommittedTransactionId);
    }

    [Fact]
    public void Inspect_reports_a_torn_journal_tail_as_a_problem_and_counts_what_an_open_keeps()
    {
        InspectStores.Create(Store, commits: 5, clean: false, valueSize: 6000);
        var last = InspectStores.Records(Store)[^1];
        Assert.Equal(5, last.TransactionId);
        InspectStores.Overwrite(last.File, last.Start + JournalRecord.SectorSize, new byte[JournalRecord.SectorSize]); // its second sector never written

        var info = StorageEnvironment.Inspect(Store);

        Assert.Equal(4, info.LastTransactionId);
        Assert.Equal(4, info.JournalTransactions);
        Assert.False(info.ClosedCleanly);
        var problem = Assert.Single(info.Problems);
        Assert.Contains("torn", problem, StringComparison.Ordinal);
        using var env = StorageEnvironment.Open(InspectStores.Options(Store));
        Assert.Equal(4, env.LastCommittedTransactionId);
    }

    [Fact]
    public void Inspect_reports_a_damaged_journal_record_as_a_problem_not_an_exception()
    {
        InspectStores.Create(Store, commits: 6, clean: false, valueSize: 6000);
        var third = InspectStores.Records(Store)[2];
        Assert.Equal(3, third.TransactionId);
        var flipped = File.ReadAllBytes(third.File).AsSpan((int)third.Start + 1000, 1).ToArray();
        flipped[0] ^= 0x10;
        InspectStores.Overwrite(third.File, third.Start + 1000, flipped); // a written sector changed since: damage, not a torn write

        var info = StorageEnvironment.Inspect(Store);

        Assert.Equal(2, info.LastTransactionId);
        Assert.False(info.ClosedCleanly);
        var problem = Assert.Single(info.Problems);
        Assert.Contains("damaged", problem, StringComparison.Ordinal);
        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(InspectStores.Options(Store)).Dispose()); // what the problem says
    }

    [Fact]
    public void Inspect_reports_one_damaged_header_copy_and_uses_the_other()
    {
        InspectStores.Create(Store, commits: 3, clean: true); // the close writes the second copy
        var layout = new StoreLayout(Store);
        var newest = HeaderFile.ReadNewest(Voron.Platform.ReadOnly.ReadOnlyFileSystem.Instance, layout)!.Value;
        InspectStores.Overwrite(layout.HeaderFile(newest.Revision - 1), HeaderFile.RevisionOffset, [0xFF]);

        var info = StorageEnvironment.Inspect(Store);

        Assert.Equal(newest.Revision, info.HeaderRevision);
        Assert.Equal(3, info.LastTransactionId);
        Assert.Contains(info.Problems, p => p.Contains(Path.GetFileName(layout.HeaderFile(newest.Revision - 1)), StringComparison.Ordinal));
    }

    [Fact]
    public void Inspect_of_a_store_of_a_newer_format_throws_FormatVersionException()
    {
        InspectStores.Create(Store, commits: 2, clean: true);
        foreach (var name in new[] { "headers.one", "headers.two" })
        {
            var path = Path.Combine(Store, name);
            var bytes = File.ReadAllBytes(path);
            BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), 5);
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));
            File.WriteAllBytes(path, bytes);
        }

        var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Inspect(Store));

        Assert.Equal(5, error.Found);
        Assert.Equal(HeaderFile.SealedFormatVersion, error.Supported);
    }

    [Fact]
    public void Inspect_throws_CorruptionException_when_no_header_copy_is_valid()
    {
        InspectStores.Create(Store, commits: 2, clean: true);
        foreach (var name in new[] { "headers.one", "headers.two" })
        {
            InspectStores.Overwrite(Path.Combine(Store, name), HeaderFile.ChecksumOffset, [0xAB, 0xCD]);
        }

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Inspect(Store));

        Assert.Contains("header", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Inspect_of_a_missing_directory_or_of_one_without_a_store_says_so()
    {
        var missing = Assert.Throws<DirectoryNotFoundException>(() => StorageEnvironment.Inspect(Store));
        Assert.Contains(Store, missing.Message, StringComparison.Ordinal);

        Directory.CreateDirectory(Store);
        File.WriteAllText(Path.Combine(Store, "notes.txt"), "not a store");
        var empty = Assert.Throws<InvalidDataException>(() => StorageEnvironment.Inspect(Store));
        Assert.Contains("not a Voron store", empty.Message, StringComparison.Ordinal);
        Assert.Equal(["notes.txt"], Directory.GetFiles(Store).Select(Path.GetFileName)); // and created nothing there
    }

    [Theory]
    [MemberData(nameof(Platform.RealFileSystemTests.FileSystems), MemberType = typeof(Platform.RealFileSystemTests))]
    public void Inspect_of_a_store_held_open_in_this_process_names_the_holder_and_disturbs_nothing(string fileSystem)
    {
        using var env = StorageEnvironment.Open(InspectStores.Options(Store, portable: fileSystem == "portable", durability: DurabilityMode.Lazy));
        InspectStores.Commit(env, 1);
        InspectStores.Commit(env, 2);
        var before = InspectStores.Files(Store);

        var info = StorageEnvironment.Inspect(Store);

        Assert.True(info.Lock.IsHeld);
        Assert.False(info.ClosedCleanly);
        Assert.Equal(2, info.LastTransactionId);
        Assert.Contains(info.JournalFiles, j => j.State == "active");
        if (!OperatingSystem.IsWindows()) // FileShare.None lets nobody read the record there
        {
            Assert.Equal(Environment.ProcessId, info.Lock.ProcessId);
            Assert.Equal(DurabilityMode.Lazy, info.Lock.Durability);
        }

        AssertSameFiles(before, InspectStores.Files(Store));
        Assert.Throws<StoreLockedException>(() => StorageEnvironment.Open(InspectStores.Options(Store)).Dispose()); // still locked
        InspectStores.Commit(env, 3); // and still writable
        Assert.Equal(3, env.LastCommittedTransactionId);
    }

    [Fact]
    public void Inspect_changes_no_byte_or_length_of_any_file_and_leaves_the_store_unlocked()
    {
        InspectStores.Create(Store, commits: 12, clean: false, valueSize: 3000); // a crashed store: recovery would write
        var before = InspectStores.Files(Store);

        StorageEnvironment.Inspect(Store);
        StorageEnvironment.Inspect(Store);

        AssertSameFiles(before, InspectStores.Files(Store));
        using var env = StorageEnvironment.Open(InspectStores.Options(Store)); // no lock left behind
        Assert.Equal(12, env.LastCommittedTransactionId);
    }

    private static void AssertSameFiles(SortedDictionary<string, byte[]> before, SortedDictionary<string, byte[]> after)
    {
        Assert.Equal(before.Keys, after.Keys);
        foreach (var (name, bytes) in before)
        {
            Assert.True(bytes.AsSpan().SequenceEqual(after[name]), $"{name} changed ({bytes.Length} bytes before, {after[name].Length} after)");
        }
    }
}
