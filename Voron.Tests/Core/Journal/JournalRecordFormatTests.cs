namespace Voron.Tests.Core.Journal;

/// <summary>The layout in the FORMAT block of JournalRecord.cs (version 2), asserted.</summary>
public sealed class JournalRecordFormatTests
{
    private static readonly RecordBinding Binding = new(JournalHarness.StoreId, 5);

    [Fact]
    public void Header_fields_are_at_the_documented_offsets_and_fill_128_bytes()
    {
        Assert.Equal(128, JournalRecord.HeaderSize);
        Assert.Equal(
            [0, 8, 10, 12, 16, 24, 32, 40, 44, 48, 112, 120, 128],
            [JournalRecord.MagicOffset, JournalRecord.FormatVersionOffset, JournalRecord.FlagsOffset, JournalRecord.EntryCountOffset,
             JournalRecord.TransactionIdOffset, JournalRecord.StoredPayloadSizeOffset, JournalRecord.UncompressedPayloadSizeOffset,
             JournalRecord.Reserved1Offset, JournalRecord.HeaderChecksumOffset, JournalRecord.StateOffset,
             JournalRecord.DurableThroughOffset, JournalRecord.CommitTimeOffset, JournalRecord.CommitTimeOffset + JournalRecord.CommitTimeSize]);
        Assert.Equal(JournalRecord.HeaderChecksumOffset, JournalRecord.Reserved1Offset + JournalRecord.Reserved1Size);
        Assert.Equal(JournalRecord.DurableThroughOffset, JournalRecord.StateOffset + JournalRecord.StateSize);
        Assert.Equal((ushort)3, JournalRecord.FormatVersion);
    }

    [Fact]
    public void Sectors_are_512_bytes_with_a_4_byte_trailer()
    {
        Assert.Equal(512, JournalRecord.SectorSize);
        Assert.Equal(4, JournalRecord.SectorTrailerSize);
        Assert.Equal(508, JournalRecord.SectorDataSize);
        Assert.Equal(0, JournalRecord.Alignment % JournalRecord.SectorSize);
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
    public void Encode_writes_a_header_that_reads_back_intact_with_every_field_and_the_body_spread_over_sectors()
    {
        var state = Enumerable.Range(0, 64).Select(i => (byte)i).ToArray();
        var image = new byte[2 * Constants.PageSize];
        image.AsSpan().Fill(0xAB);
        var pages = new[] { new JournalPage(7, image) };
        var payload = JournalRecord.MeasurePayload(pages);
        var record = new byte[JournalRecord.RecordSize(payload)];
        record.AsSpan().Fill(0xEE);

        JournalRecord.Encode(record, Binding, 42, state, pages, durableThrough: 40);

        Assert.True(JournalRecordHeader.TryRead(record, Binding, out var header));
        Assert.Equal(new JournalRecordHeader(3, JournalRecordFlags.None, 1, 42, payload, payload, 40, ReservedIsZero: true), header);
        Assert.Equal(state, record.AsSpan(JournalRecord.StateOffset, 64).ToArray());
        Assert.Equal(JournalRecord.SectorState.Intact, JournalRecord.CheckSectors(record, JournalRecord.SectorSeed(Binding.StoreId, 5, 42), out _));

        // Sector 0: header, then the entry header; sector 1 starts with body byte 508.
        Assert.Equal(7, BinaryPrimitives.ReadInt64LittleEndian(record.AsSpan(128)));
        Assert.Equal(2, BinaryPrimitives.ReadInt32LittleEndian(record.AsSpan(136)));
        Assert.Equal(image.Length, BinaryPrimitives.ReadInt32LittleEndian(record.AsSpan(140)));
        Assert.Equal(0, record[144]);
        Assert.Equal(0xAB, record[152]);
        Assert.Equal(JournalRecord.SectorChecksum(JournalRecord.SectorSeed(Binding.StoreId, 5, 42), 0, record), BinaryPrimitives.ReadUInt32LittleEndian(record.AsSpan(508)));
        Assert.Equal(0xAB, record[512]);

        // The body bytes after the payload are zeros, sector by sector (trailers aside).
        var body = record.ToArray();
        JournalRecord.Unframe(body, body.Length / 512 * 508);
        Assert.All(body.AsSpan(128 + (int)payload, (body.Length / 512 * 508) - 128 - (int)payload).ToArray(), b => Assert.Equal(0, b));
    }

    [Fact]
    public void Header_checksum_covers_every_header_byte_and_is_bound_to_the_store_and_the_file()
    {
        var record = new byte[JournalRecord.RecordSize(0)];
        JournalRecord.Encode(record, Binding, 1, new byte[64], [], durableThrough: 0);

        for (var i = 0; i < JournalRecord.HeaderSize; i++)
        {
            record[i] ^= 0x10;
            Assert.False(JournalRecordHeader.TryRead(record, Binding, out _), $"byte {i}");
            record[i] ^= 0x10;
        }

        Assert.True(JournalRecordHeader.TryRead(record, Binding, out _));
        Assert.False(JournalRecordHeader.TryRead(record, Binding with { StoreId = Binding.StoreId + 1 }, out _), "another store");
        Assert.False(JournalRecordHeader.TryRead(record, Binding with { FileNumber = 6 }, out _), "another file");
    }

    [Fact]
    public void A_sector_that_fails_is_torn_when_all_zeros_and_damaged_otherwise()
    {
        var image = new byte[3 * Constants.PageSize];
        new Random(5).NextBytes(image);
        var record = new byte[JournalRecord.RecordSize(JournalRecord.MeasurePayload([new JournalPage(9, image)]))];
        JournalRecord.Encode(record, Binding, 3, new byte[64], [new JournalPage(9, image)], durableThrough: 2);
        var seed = JournalRecord.SectorSeed(Binding.StoreId, 5, 3);

        record.AsSpan(3 * 512, 512).Clear();
        record.AsSpan(9 * 512, 512).Clear();
        Assert.Equal(JournalRecord.SectorState.Torn, JournalRecord.CheckSectors(record, seed, out var firstTorn));
        Assert.Equal(3, firstTorn);

        record[20 * 512 + 100] ^= 1;
        Assert.Equal(JournalRecord.SectorState.Damaged, JournalRecord.CheckSectors(record, seed, out var firstDamaged));
        Assert.Equal(20, firstDamaged);
    }

    [Fact]
    public void RecordSize_counts_508_body_bytes_per_sector_and_rounds_up_to_4096()
    {
        Assert.Equal(4096, JournalRecord.RecordSize(0));
        Assert.Equal(4096, JournalRecord.RecordSize((8 * 508) - 128));
        Assert.Equal(8192, JournalRecord.RecordSize((8 * 508) - 127));
        Assert.Equal(JournalRecord.MaxRecordSize, JournalRecord.RecordSize(JournalRecord.MaxStoredPayloadSize));
        Assert.True(JournalRecord.RecordSize(JournalRecord.MaxStoredPayloadSize + 1) > JournalRecord.MaxRecordSize);
    }
}
