using Voron.Header;

namespace Voron.Tests.Core.Hardening;

/// <summary>
/// What a store written by format version 1 (before the journal's sectors and the store id) does
/// on open: upgraded when its data file holds every commit, refused with what to do otherwise
/// (StorageEnvironment.Open.cs, UpgradeFormat1; the Compatibility rules of the FORMAT blocks).
/// </summary>
public sealed class FormatUpgradeTests
{
    private static byte[] B(string s) => Encoding.UTF8.GetBytes(s);

    /// <summary>A header copy as format version 1 wrote it: the same fields up to 112, a CRC32C of bytes 0..111 at 112, no store id.</summary>
    internal static byte[] EncodeFormat1(HeaderRecord header)
    {
        var bytes = new byte[HeaderFile.Size];
        BinaryPrimitives.WriteUInt64LittleEndian(bytes, HeaderFile.Magic);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(8), 1);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(12), Constants.PageSize);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(16), header.Revision);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(24), header.LastSyncedTxId);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(32), header.JournalFile);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(40), header.JournalOffset);
        header.State.WriteTo(bytes.AsSpan(48));
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(112), Crc32C.Compute(bytes.AsSpan(0, 112)));
        return bytes;
    }

    /// <summary>An intact format-1 record header (no binding, a plain CRC32C) of transaction <paramref name="transactionId"/>.</summary>
    private static byte[] Format1RecordHeader(long transactionId)
    {
        var record = new byte[JournalRecord.HeaderSize];
        BinaryPrimitives.WriteUInt64LittleEndian(record, JournalRecord.Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(record.AsSpan(8), 1);
        BinaryPrimitives.WriteInt64LittleEndian(record.AsSpan(16), transactionId);
        BinaryPrimitives.WriteUInt32LittleEndian(record.AsSpan(44), Crc32C.Compute(record));
        return record;
    }

    /// <summary>A store closed cleanly, then turned into what format 1 left: format-1 header copies and a spare kept for reuse.</summary>
    private static (InMemoryFileSystem Fs, HeaderRecord Header) CleanFormat1Store()
    {
        var fs = StoreFactory.NewFileSystem();
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            for (var i = 0; i < 20; i++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(B($"key{i:D3}"), B($"value {i}"));
                tx.Commit();
            }
        }

        var layout = new StoreLayout("/store");
        var header = HeaderFile.ReadNewest(fs, layout)!.Value;
        foreach (var copy in new[] { header, header with { Revision = header.Revision - 1 } })
        {
            using var file = fs.Open(layout.HeaderFile(copy.Revision), FileOpenMode.OpenOrCreate);
            file.Write(0, EncodeFormat1(copy));
        }

        // Format 1's journal held format-1 records: zero the format-2 ones, and leave a stale
        // format-1 record header before the synced point.
        foreach (var number in JournalFiles.List(fs, layout.JournalDirectory))
        {
            using var file = fs.Open(JournalFiles.PathOf(layout.JournalDirectory, number), FileOpenMode.OpenExisting);
            file.Write(0, new byte[file.Length]);
            file.Write(0, Format1RecordHeader(header.LastSyncedTxId));
        }

        using (var spare = fs.Open(JournalFiles.SparePathOf(layout.JournalDirectory, 0), FileOpenMode.CreateNew))
        {
            spare.Write(0, Enumerable.Repeat((byte)0xA5, 8192).ToArray());
        }

        return (fs, header);
    }

    [Fact]
    public void A_cleanly_closed_format_1_store_is_upgraded_on_open_and_keeps_every_commit()
    {
        var (fs, old) = CleanFormat1Store();
        var layout = new StoreLayout("/store");
        var oldFiles = JournalFiles.List(fs, layout.JournalDirectory);

        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            using (var read = env.BeginRead())
            {
                Assert.Equal(20, read.OpenTree("t")!.Count);
            }

            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(B("after"), B("upgrade"));
            tx.Commit();
        }

        var header = HeaderFile.ReadNewest(fs, layout)!.Value;
        Assert.False(header.IsFormat1);
        Assert.True(header.Revision > old.Revision);
        Assert.Empty(JournalFiles.ListSpares(fs, layout.JournalDirectory));
        Assert.DoesNotContain(JournalFiles.List(fs, layout.JournalDirectory), n => oldFiles.Contains(n)); // the journal went on in a new file
        using var reopened = StorageEnvironment.Open(StoreFactory.Options(fs));
        using var again = reopened.BeginRead();
        Assert.Equal(21, again.OpenTree("t")!.Count);
        Assert.Equal(B("upgrade"), again.OpenTree("t")!.Get(B("after")));
    }

    [Fact]
    public void A_format_1_store_whose_journal_holds_commits_its_data_file_lacks_is_refused_with_what_to_do()
    {
        var (fs, header) = CleanFormat1Store();
        var journal = JournalFiles.PathOf("/store/journal", header.JournalFile);
        using (var file = fs.Open(journal, FileOpenMode.OpenExisting))
        {
            file.Write(header.JournalOffset, Format1RecordHeader(header.LastSyncedTxId + 1));
        }

        var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(journal, error.File);
        Assert.Equal(1, error.Found);
        Assert.Equal(JournalRecord.FormatVersion, error.Supported);
        Assert.Contains("dispose it cleanly", error.Message, StringComparison.Ordinal);
        Assert.True(HeaderFile.ReadNewest(fs, new StoreLayout("/store"))!.Value.IsFormat1, "nothing was changed");
    }

    [Fact]
    public void A_format_1_header_copy_with_format_2_records_in_the_journal_is_corruption_not_an_upgrade()
    {
        // The newer (format 2) copy was lost: upgrading from the older one would start a new
        // journal file and skip the format-2 records.
        using var fs = StoreFactory.NewFileSystem();
        var env = StorageEnvironment.Open(StoreFactory.Options(fs));
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put(B("k"), B("v"));
            tx.Commit();
        }

        env.CloseWithoutFlush();
        var layout = new StoreLayout("/store");
        var header = HeaderFile.ReadNewest(fs, layout)!.Value;
        using (var file = fs.Open(layout.HeaderFile(header.Revision), FileOpenMode.OpenExisting))
        {
            file.Write(0, EncodeFormat1(header));
        }

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));
        Assert.Contains("records of a later format", error.Reason, StringComparison.Ordinal);
    }
}
