using System.Buffers.Binary;
using System.Text;
using Voron.Journal;

namespace Voron.Tests.Journal;

/// <summary>The layout in the FORMAT block of JournalRecord.cs, asserted.</summary>
public sealed class JournalRecordFormatTests
{
    [Fact]
    public void Header_fields_are_at_the_documented_offsets_and_fill_128_bytes()
    {
        Assert.Equal(128, JournalRecord.HeaderSize);
        Assert.Equal(
            [0, 8, 10, 12, 16, 24, 32, 40, 44, 48, 112, 128],
            [JournalRecord.MagicOffset, JournalRecord.FormatVersionOffset, JournalRecord.FlagsOffset, JournalRecord.EntryCountOffset,
             JournalRecord.TransactionIdOffset, JournalRecord.StoredPayloadSizeOffset, JournalRecord.UncompressedPayloadSizeOffset,
             JournalRecord.PayloadChecksumOffset, JournalRecord.HeaderChecksumOffset, JournalRecord.StateOffset,
             JournalRecord.ReservedOffset, JournalRecord.ReservedOffset + JournalRecord.ReservedSize]);
        Assert.Equal(JournalRecord.ReservedOffset, JournalRecord.StateOffset + JournalRecord.StateSize);
    }

    [Fact]
    public void Entry_header_fields_are_at_the_documented_offsets_and_fill_24_bytes()
    {
        Assert.Equal(
            [0, 8, 12, 16, 17, 24],
            [JournalRecord.EntryPageNumberOffset, JournalRecord.EntryPageCountOffset, JournalRecord.EntryStoredLengthOffset,
             JournalRecord.EntryEncodingOffset, JournalRecord.EntryReservedOffset, JournalRecord.EntryReservedOffset + JournalRecord.EntryReservedSize]);
        Assert.Equal(24, JournalRecord.EntryHeaderSize);
    }

    [Fact]
    public void Magic_reads_as_VORONJNL()
    {
        var bytes = new byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(bytes, JournalRecord.Magic);

        Assert.Equal("VORONJNL", Encoding.ASCII.GetString(bytes));
    }

    [Fact]
    public void Crc32C_matches_the_standard_check_value()
    {
        Assert.Equal(0xE3069283u, JournalRecord.Crc32C("123456789"u8));
        Assert.Equal(0u, JournalRecord.Crc32C([]));
    }

    [Fact]
    public void Encode_writes_a_header_that_reads_back_intact_with_every_field()
    {
        var state = Enumerable.Range(0, 64).Select(i => (byte)i).ToArray();
        var image = new byte[2 * Constants.PageSize];
        image.AsSpan().Fill(0xAB);
        var pages = new[] { new JournalPage(7, image) };
        var payload = JournalRecord.MeasurePayload(pages);
        var record = new byte[JournalRecord.RecordSize(payload)];
        record.AsSpan().Fill(0xEE);

        JournalRecord.Encode(record, 42, state, pages);

        Assert.True(JournalRecordHeader.TryRead(record, out var header));
        Assert.Equal(new JournalRecordHeader(1, JournalRecordFlags.None, 1, 42, payload, payload,
            JournalRecord.Crc32C(record.AsSpan(128, (int)payload)), ReservedIsZero: true), header);
        Assert.Equal(state, record.AsSpan(JournalRecord.StateOffset, 64).ToArray());
        Assert.Equal(7, BinaryPrimitives.ReadInt64LittleEndian(record.AsSpan(128)));
        Assert.Equal(2, BinaryPrimitives.ReadInt32LittleEndian(record.AsSpan(136)));
        Assert.Equal(image.Length, BinaryPrimitives.ReadInt32LittleEndian(record.AsSpan(140)));
        Assert.Equal(0, record[144]);
        Assert.All(record.AsSpan(128 + (int)payload).ToArray(), b => Assert.Equal(0, b));
    }

    [Fact]
    public void Header_checksum_covers_every_header_byte()
    {
        var record = new byte[JournalRecord.RecordSize(0)];
        JournalRecord.Encode(record, 1, new byte[64], []);

        for (var i = 0; i < JournalRecord.HeaderSize; i++)
        {
            record[i] ^= 0x10;
            Assert.False(JournalRecordHeader.TryRead(record, out _), $"byte {i}");
            record[i] ^= 0x10;
        }

        Assert.True(JournalRecordHeader.TryRead(record, out _));
    }

    [Fact]
    public void RecordSize_rounds_header_and_payload_up_to_4096()
    {
        Assert.Equal(4096, JournalRecord.RecordSize(0));
        Assert.Equal(4096, JournalRecord.RecordSize(4096 - 128));
        Assert.Equal(8192, JournalRecord.RecordSize(4096 - 127));
    }
}
