using Voron.Header;
using Voron.Paging;

namespace Voron.Tests.Core.Format;

/// <summary>
/// A store of a format newer than this build's is refused with FormatVersionException naming the
/// file, the version found and the version this build supports — at the header, at a journal
/// record recovery reaches, and at the data file's identity page — never reported as damage.
/// </summary>
public sealed class NewerFormatTests
{
    private static readonly StoreLayout Layout = new("/store");

    [Fact]
    public void Open_refuses_a_store_whose_newest_header_copy_is_format5()
    {
        using var fs = Format2Fixture.Load();
        StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose();
        var header = HeaderFile.ReadNewest(fs, Layout)!.Value;
        var next = header with { Revision = header.Revision + 1 };
        var bytes = HeaderFile.Encode(next);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), 5);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));
        using (var file = fs.Open(Layout.HeaderFile(next.Revision), FileOpenMode.OpenExisting))
        {
            file.Write(0, bytes);
        }

        var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(5, error.Found);
        Assert.Equal(HeaderFile.SealedFormatVersion, error.Supported);
        Assert.Equal(Layout.HeaderFile(next.Revision), error.File);
        Assert.Contains("format version 5", error.Message, StringComparison.Ordinal);
        Assert.Contains("supports version 4", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Recovery_refuses_a_format4_journal_record_instead_of_calling_it_damage()
    {
        // The fixture's journal holds transactions its data file lacks; the first one becomes a
        // record a (hypothetical) format-4 writer of this store wrote: every checksum re-stamped.
        using var fs = Format2Fixture.Load();
        var header = HeaderFile.ReadNewest(fs, Layout)!.Value;
        var path = JournalFiles.PathOf(Layout.JournalDirectory, header.JournalFile);
        using (var file = fs.Open(path, FileOpenMode.OpenExisting))
        {
            var head = new byte[JournalRecord.HeaderSize];
            file.Read(header.JournalOffset, head);
            var tx = JournalRecord.GetTransactionId(head);
            Assert.Equal(header.LastSyncedTxId + 1, tx);
            var record = new byte[JournalRecord.RecordSize(BinaryPrimitives.ReadInt64LittleEndian(head.AsSpan(JournalRecord.StoredPayloadSizeOffset)))];
            file.Read(header.JournalOffset, record);
            var body = (int)(record.Length / JournalRecord.SectorSize * JournalRecord.SectorDataSize);
            JournalRecord.Unframe(record, body);
            BinaryPrimitives.WriteUInt16LittleEndian(record.AsSpan(JournalRecord.FormatVersionOffset), 4);
            BinaryPrimitives.WriteUInt32LittleEndian(record.AsSpan(JournalRecord.HeaderChecksumOffset),
                JournalRecord.ComputeHeaderChecksum(record.AsSpan(0, JournalRecord.HeaderSize), header.StoreId, header.JournalFile));
            JournalRecord.Frame(record, body, JournalRecord.SectorSeed(header.StoreId, header.JournalFile, tx));
            file.Write(header.JournalOffset, record);
        }

        foreach (var recovery in new[] { JournalTailRecovery.Strict, JournalTailRecovery.DiscardAnyDamage })
        {
            var options = StoreFactory.Options(fs);
            options.JournalTailRecovery = recovery;

            var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Open(options));

            Assert.Equal(4, error.Found);
            Assert.Equal(3, error.Supported);
            Assert.Equal(path, error.File);
        }
    }

    [Fact]
    public void Open_refuses_a_data_file_whose_identity_page_is_of_a_newer_version()
    {
        using var fs = Format2Fixture.Load();
        StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose();
        using (var data = fs.Open(Layout.DataFile, FileOpenMode.OpenExisting))
        {
            var page = new byte[Constants.PageSize];
            data.Read(0, page);
            BinaryPrimitives.WriteInt32LittleEndian(page.AsSpan(72), DataFileIdentity.FormatVersion + 1);
            PageHeader.StampChecksum(page);
            data.Write(0, page);
        }

        var error = Assert.Throws<FormatVersionException>(() => StorageEnvironment.Open(StoreFactory.Options(fs)));

        Assert.Equal(DataFileIdentity.FormatVersion + 1, error.Found);
        Assert.Equal(DataFileIdentity.FormatVersion, error.Supported);
        Assert.Equal(Layout.DataFile, error.File);
    }
}
