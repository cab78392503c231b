using Voron.Header;
using Voron.Paging;
using Voron.Testing.Journal;

namespace Voron.Tests.Core.Hardening;

/// <summary>
/// Regressions: bytes from disk that raised something other than CorruptionException, an
/// allocation sized by an on-disk count, and a misleading error for a file path. The class is
/// fuzzed by Faults/OnDiskFuzzTests; these are its known cases, one test each.
/// </summary>
public sealed class OnDiskValidationTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>
    /// What broke: an overflow page claiming a value of nearly 2^31 bytes, in a data file big enough
    /// to hold the run, made Pager.ReadPage compute the run's length with a checked int cast:
    /// OverflowException. Fixed by rule P3: an overflow size above Constants.MaxValueSize (which
    /// a journal record can hold, so 2,000,000,000) is corruption.
    /// </summary>
    [Fact]
    public void An_overflow_page_claiming_nearly_2_GiB_is_corruption()
    {
        using var fs = new InMemoryFileSystem(4L << 30);
        using var file = fs.Open("/voron.data", FileOpenMode.CreateNew);
        file.SetLength(2300L << 20); // sparse: big enough for the run the page claims
        var page = new byte[Constants.PageSize];
        PageHeader.SetPageNumber(page, 1);
        PageHeader.SetFlags(page, PageFlags.Overflow);
        PageHeader.SetOverflowSize(page, int.MaxValue - PageHeader.Size);
        file.Write(Constants.PageSize, page);
        using var pager = new Pager(file, 4L << 30);

        var error = Assert.Throws<CorruptionException>(() => pager.ReadPage(1).Length);

        Assert.Contains("P3", error.Reason, StringComparison.Ordinal);
    }

    /// <summary>
    /// What broke: recovery allocated PageCount * 8 KiB for each diff entry, PageCount read from the
    /// record, and wrote the result into the data file: a small record claiming a diff over 200,000
    /// pages cost a 1.6 GB buffer and grew the data file to match. Fixed by bounding an entry by the
    /// record's own NextPageNumber (no transaction writes a page it has not allocated): beyond it,
    /// the entry is corruption, and the data file does not grow.
    /// </summary>
    [Fact]
    public void A_diff_entry_claiming_more_pages_than_the_store_has_is_corruption_and_grows_nothing()
    {
        using var fs = StoreFactory.NewFileSystem();
        var options = StoreFactory.Options(fs);
        options.JournalCompression = false;
        var env = StorageEnvironment.Open(options);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        env.FlushToDataFile();
        var start = env.Journal.Position;
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("w"));
            tx.Commit();
        }

        env.CloseWithoutFlush();
        var edited = false;
        StoredRecords.Edit(fs, start, body =>
        {
            var payload = body.Slice(JournalRecord.HeaderSize, (int)BinaryPrimitives.ReadInt64LittleEndian(body[JournalRecord.StoredPayloadSizeOffset..]));
            for (var at = 0; at < payload.Length && !edited;)
            {
                var entry = payload[at..];
                if (entry[JournalRecord.EntryEncodingOffset] == (byte)JournalPageEncoding.DiffAgainstPrevious)
                {
                    BinaryPrimitives.WriteInt32LittleEndian(entry[JournalRecord.EntryPageCountOffset..], 200_000);
                    edited = true;
                }

                at += JournalRecord.EntryHeaderSize + BinaryPrimitives.ReadInt32LittleEndian(entry[JournalRecord.EntryStoredLengthOffset..]);
            }
        });
        Assert.True(edited, "the record holds a diff entry");
        long before;
        using (var data = fs.Open("/store/voron.data", FileOpenMode.OpenExisting))
        {
            before = data.Length;
        }

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose());

        Assert.Contains("next page number", error.Reason, StringComparison.Ordinal);
        using var after = fs.Open("/store/voron.data", FileOpenMode.OpenExisting);
        Assert.Equal(before, after.Length);
    }

    /// <summary>
    /// What broke: a negative journal position in an intact header copy reached the journal reader,
    /// which threw ArgumentOutOfRangeException. Fixed by rule HF6 of the header file.
    /// </summary>
    [Fact]
    public void A_header_copy_with_a_negative_journal_position_is_corruption() =>
        AssertOpenRefusesTheNewestHeaderCopyWith(HeaderFile.JournalOffsetOffset, -4096);

    /// <summary>
    /// Regression: a header copy whose revision, last synced transaction or journal file number is
    /// the largest long passed HF4/HF6, and open incremented it: the revision wrapped negative (the
    /// next open refused the copy it had just written) and transaction ids and journal file numbers
    /// went negative. Those values are now corruption.
    /// </summary>
    [Theory]
    [InlineData(HeaderFile.RevisionOffset)]
    [InlineData(HeaderFile.LastSyncedTxIdOffset)]
    [InlineData(HeaderFile.JournalFileOffset)]
    public void A_header_copy_with_a_counter_at_the_largest_long_is_corruption(int offset) =>
        AssertOpenRefusesTheNewestHeaderCopyWith(offset, long.MaxValue);

    /// <summary>Writes <paramref name="value"/> at <paramref name="offset"/> of a closed store's newest header copy (checksum restamped, as a buggy writer would) and checks open names that copy as corrupt.</summary>
    private static void AssertOpenRefusesTheNewestHeaderCopyWith(int offset, long value)
    {
        using var fs = StoreFactory.NewFileSystem();
        StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose();
        var layout = new StoreLayout("/store");
        var header = HeaderFile.ReadNewest(fs, layout)!.Value;
        var bytes = HeaderFile.Encode(header);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(offset), value);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));
        using (var file = fs.Open(layout.HeaderFile(header.Revision), FileOpenMode.OpenExisting))
        {
            file.Write(0, bytes);
        }

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose());

        Assert.Equal(layout.HeaderFile(header.Revision), error.File);
    }

    /// <summary>
    /// Regression: a tree state's depth was checked only to be non-negative, and the descent sized
    /// its path buffers by it (depth 2^30 wrapped the size negative: OverflowException or
    /// ArgumentOutOfRangeException; a depth of millions with a branch pointing at itself recursed
    /// until the stack overflowed). Depth is now at most 64.
    /// </summary>
    [Theory]
    [InlineData(65)]
    [InlineData(0x3FFF_FFFF)]
    [InlineData(0x4000_0000)]
    [InlineData(int.MaxValue)]
    public void A_tree_state_deeper_than_any_store_can_hold_is_corruption(int depth)
    {
        var bytes = new byte[Voron.Trees.TreeState.Size];
        new Voron.Trees.TreeState(RootPage: 5, Depth: 1, EntryCount: 1, LeafPages: 1, BranchPages: 0, OverflowPages: 0).WriteTo(bytes);
        Assert.Equal(1, Voron.Trees.TreeState.ReadFrom(bytes, "/fuzz", 0).Depth);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(8), depth);

        var error = Assert.Throws<CorruptionException>(() => Voron.Trees.TreeState.ReadFrom(bytes, "/fuzz", 0));

        Assert.Contains("inconsistent", error.Reason, StringComparison.Ordinal);
    }

    /// <summary>
    /// What broke: opening a store at the path of a file said "the file ... already exists", which
    /// reads as if the store were there. Fixed in CreateDirectory: it says the path is a file, not
    /// a directory.
    /// </summary>
    [Fact]
    public void Opening_a_file_path_says_it_is_not_a_directory()
    {
        using var temp = new TempDirectory();
        var path = temp.Combine("not-a-directory");
        File.WriteAllBytes(path, [1, 2, 3]);

        var error = Assert.Throws<IOException>(() => StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(path)).Dispose());
        var nested = Assert.Throws<IOException>(() => StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(Path.Combine(path, "store"))).Dispose());

        Assert.Contains($"'{path}' is a file, not a directory", error.Message, StringComparison.Ordinal);
        Assert.Contains($"'{path}' is a file, not a directory", nested.Message, StringComparison.Ordinal);
        Assert.Equal([1, 2, 3], File.ReadAllBytes(path));
    }
}
