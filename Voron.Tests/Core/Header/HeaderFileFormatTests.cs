using Voron.Header;
using Voron.Tests.Core.Hardening;

namespace Voron.Tests.Core.Header;

/// <summary>The layout in the FORMAT block of Header/HeaderFile.cs (version 3), asserted.</summary>
public sealed class HeaderFileFormatTests
{
    private static readonly HeaderRecord Sample = new(7, 41, 3, 8192, EnvironmentState.Empty with { NextPageNumber = 99 }, 0xABCD_EF01_2345_6789);

    [Fact]
    public void Fields_are_at_the_documented_offsets_of_a_512_byte_copy()
    {
        Assert.Equal(512, HeaderFile.Size);
        Assert.Equal(3, HeaderFile.FormatVersion);
        Assert.Equal(
            [0, 8, 12, 16, 24, 32, 40, 48, 112, 116, 120, 128],
            [HeaderFile.MagicOffset, HeaderFile.FormatVersionOffset, HeaderFile.PageSizeOffset, HeaderFile.RevisionOffset, HeaderFile.LastSyncedTxIdOffset,
             HeaderFile.JournalFileOffset, HeaderFile.JournalOffsetOffset, HeaderFile.StateOffset, HeaderFile.ChecksumOffset, HeaderFile.Reserved1Offset,
             HeaderFile.StoreIdOffset, HeaderFile.Reserved2Offset]);
        Assert.Equal(HeaderFile.ChecksumOffset, HeaderFile.StateOffset + EnvironmentState.Size);

        var bytes = HeaderFile.Encode(Sample);
        Assert.Equal("VORONHDR", Encoding.ASCII.GetString(bytes, 0, 8));
        Assert.Equal(3, BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(8)));
        Assert.Equal(Constants.PageSize, BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(12)));
        Assert.Equal(7, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(16)));
        Assert.Equal(41, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(24)));
        Assert.Equal(3, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(32)));
        Assert.Equal(8192, BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(40)));
        Assert.Equal(Sample.StoreId, BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(120)));
        Assert.Equal(HeaderFile.ComputeChecksum(bytes), BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(112)));
        Assert.False(bytes.AsSpan(116, 4).ContainsAnyExcept((byte)0));
        Assert.False(bytes.AsSpan(128).ContainsAnyExcept((byte)0));
        Assert.Equal(Sample, HeaderFile.Decode(bytes, "/h"));
    }

    [Fact]
    public void The_checksum_covers_every_byte_of_the_copy()
    {
        var bytes = HeaderFile.Encode(Sample);
        for (var i = 0; i < HeaderFile.Size; i++)
        {
            if (i is >= HeaderFile.ChecksumOffset and < HeaderFile.ChecksumOffset + 4)
            {
                continue;
            }

            bytes[i] ^= 0x04;
            var decoded = i is >= 8 and < 12 ? null : HeaderFile.Decode(bytes, "/h"); // a version flip may also be a FormatVersionException
            Assert.True(decoded is null, $"byte {i}");
            bytes[i] ^= 0x04;
        }
    }

    [Theory]
    [InlineData(HeaderFile.LastSyncedTxIdOffset, -1L)]
    [InlineData(HeaderFile.JournalFileOffset, -1L)]
    [InlineData(HeaderFile.JournalOffsetOffset, -4096L)]
    [InlineData(HeaderFile.JournalOffsetOffset, 100L)]
    [InlineData(HeaderFile.StoreIdOffset, 0L)]
    [InlineData(HeaderFile.Reserved2Offset + 8, 1L)]
    public void A_copy_written_with_an_invalid_field_is_corruption(int offset, long value)
    {
        // Regression: negative journal fields from a header reached the journal reader, which threw
        // ArgumentOutOfRangeException instead of CorruptionException; rule HF6 refuses them.
        var bytes = HeaderFile.Encode(Sample);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(offset), value);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));

        var error = Assert.Throws<CorruptionException>(() => HeaderFile.Decode(bytes, "/store/headers.one"));
        Assert.Equal("/store/headers.one", error.File);
    }

    [Fact]
    public void A_format_1_copy_decodes_without_a_store_id()
    {
        var bytes = FormatUpgradeTests.EncodeFormat1(Sample);

        var decoded = HeaderFile.Decode(bytes, "/h");

        Assert.Equal(Sample with { StoreId = 0, FormatVersion = 1 }, decoded);
        Assert.True(decoded!.Value.IsFormat1);
    }

    [Fact]
    public void A_format_2_copy_decodes_as_it_was_written_and_says_its_version()
    {
        var bytes = HeaderFile.Encode(Sample);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), HeaderFile.FormatVersion2);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));

        var decoded = HeaderFile.Decode(bytes, "/h");

        Assert.Equal(Sample with { FormatVersion = 2 }, decoded);
        Assert.Equal(3, HeaderFile.Encode(decoded!.Value)[HeaderFile.FormatVersionOffset]);
    }

    [Fact]
    public void A_format_5_copy_is_refused_with_FormatVersionException_naming_the_file_and_both_versions()
    {
        var bytes = HeaderFile.Encode(Sample);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), 5);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));

        var error = Assert.Throws<FormatVersionException>(() => HeaderFile.Decode(bytes, "/store/headers.one"));

        Assert.Equal((5, HeaderFile.SealedFormatVersion, "/store/headers.one"), (error.Found, error.Supported, error.File));
    }
}
