using Voron.Paging;
using Voron.Sealing;

namespace Voron.Tests.Core.Sealing;

/// <summary>The layout in the FORMAT block of Sealing/SealFormat.cs, asserted.</summary>
public sealed class SealFormatTests
{
    [Fact]
    public void Nonce_tag_and_reserved_bytes_fill_the_page_headers_reserved_bytes_in_order()
    {
        Assert.Equal(PageHeader.OverflowSizeOffset + sizeof(int), SealFormat.PageNonceOffset);
        Assert.Equal(SealFormat.PageNonceOffset + SealFormat.NonceSize, SealFormat.PageTagOffset);
        Assert.Equal(SealFormat.PageTagOffset + SealFormat.TagSize, SealFormat.PageReservedOffset);
        Assert.Equal(PageHeader.Size, SealFormat.PageReservedOffset + SealFormat.PageReservedSize);
        Assert.Equal([24, 36, 52], [SealFormat.PageNonceOffset, SealFormat.PageTagOffset, SealFormat.PageReservedOffset]);
    }

    [Fact]
    public void The_authenticated_header_fields_are_bytes_12_to_23_after_the_checksum()
    {
        Assert.Equal(PageHeader.ChecksumOffset + sizeof(uint), SealFormat.PageAadFieldsOffset);
        Assert.Equal(SealFormat.PageNonceOffset, SealFormat.PageAadFieldsOffset + SealFormat.PageAadFieldsSize);
    }

    [Fact]
    public void A_sealed_range_is_nonce_ciphertext_tag_and_the_sizes_are_the_AEADs()
    {
        Assert.Equal(12, SealFormat.NonceSize);
        Assert.Equal(16, SealFormat.TagSize);
        Assert.Equal(32, SealFormat.KeySize);
        Assert.Equal(32, SealFormat.SaltSize);
        Assert.Equal(16, SealFormat.CheckValueSize);
        Assert.Equal(8 + 4, SealFormat.NoncePrefixSize + (NonceSource.CounterBits / 8));
        Assert.Equal(0, SealFormat.RecordNonceOffset);
        Assert.Equal(SealFormat.NonceSize, SealFormat.RecordCiphertextOffset);
        Assert.Equal(28, SealFormat.RecordOverhead);
        Assert.Equal(28, SealFormat.BlockSealSize);
        Assert.Equal(new Range(12, 100 - 16), RecordSeal.PayloadRange(100));
    }

    [Fact]
    public void The_preferred_algorithm_is_one_this_machine_supports()
    {
        Assert.True(SealFormat.IsSupported(SealFormat.Preferred));
        Assert.False(SealFormat.IsSupported(SealAlgorithm.None));
    }
}
