using System.Buffers.Binary;
using Voron.Header;
using Voron.Sealing;

namespace Voron.Tests.Core.Sealing;

/// <summary>The seal fields of the header file's format 4 (FORMAT block in Header/HeaderFile.cs), asserted.</summary>
public sealed class SealedHeaderFormatTests
{
    private static readonly HeaderRecord Unsealed = new(7, 41, 3, 8192, EnvironmentState.Empty with { NextPageNumber = 99 }, 0xABCD_EF01_2345_6789);

    private static HeaderRecord Sealed => Unsealed with
    {
        Seal = new HeaderSeal(SealAlgorithm.ChaCha20Poly1305, SealingFixtures.Salt(0x5A), Enumerable.Range(1, SealFormat.CheckValueSize).Select(i => (byte)i).ToArray()),
    };

    [Fact]
    public void Seal_fields_are_at_the_documented_offsets_of_a_format_4_copy_and_round_trip()
    {
        Assert.Equal([128, 129, 136, 168, 184],
            [HeaderFile.SealAlgorithmOffset, HeaderFile.SealReservedOffset, HeaderFile.SaltOffset, HeaderFile.CheckValueOffset, HeaderFile.SealFieldsEnd]);

        var bytes = HeaderFile.Encode(Sealed);

        Assert.Equal(4, BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset)));
        Assert.Equal((byte)SealAlgorithm.ChaCha20Poly1305, bytes[128]);
        Assert.False(bytes.AsSpan(129, 7).ContainsAnyExcept((byte)0));
        Assert.Equal(Sealed.Seal!.Salt, bytes.AsSpan(136, 32).ToArray());
        Assert.Equal(Sealed.Seal!.CheckValue, bytes.AsSpan(168, 16).ToArray());
        Assert.False(bytes.AsSpan(184).ContainsAnyExcept((byte)0));
        var decoded = HeaderFile.Decode(bytes, "/h")!.Value;
        Assert.Equal(4, decoded.FormatVersion);
        Assert.Equal(Sealed.Seal.Algorithm, decoded.Seal!.Algorithm);
        Assert.Equal(Sealed.Seal.Salt, decoded.Seal.Salt);
        Assert.Equal(Sealed.Seal.CheckValue, decoded.Seal.CheckValue);
        Assert.Equal(Unsealed, decoded with { Seal = null, FormatVersion = HeaderFile.FormatVersion });
    }

    [Fact]
    public void An_unsealed_copy_is_format_3_with_every_byte_from_128_zero()
    {
        var bytes = HeaderFile.Encode(Unsealed);

        Assert.Equal(3, BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset)));
        Assert.False(bytes.AsSpan(128).ContainsAnyExcept((byte)0));
        Assert.Null(HeaderFile.Decode(bytes, "/h")!.Value.Seal);
    }

    [Theory]
    [InlineData(128, 0, "HF8")] // algorithm "not sealed" in a sealed copy
    [InlineData(128, 3, "HF8")] // an algorithm no build writes
    [InlineData(129, 1, "HF7")] // the seal's reserved bytes
    [InlineData(200, 1, "HF7")] // the reserved bytes after the check value
    public void A_format_4_copy_with_a_bad_seal_field_is_CorruptionException_naming_the_rule(int offset, byte value, string rule)
    {
        var bytes = HeaderFile.Encode(Sealed);
        bytes[offset] = value;
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));

        var error = Assert.Throws<CorruptionException>(() => HeaderFile.Decode(bytes, "/store/headers.one"));

        Assert.Contains(rule, error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_format_3_copy_with_seal_fields_is_CorruptionException_as_before()
    {
        var bytes = HeaderFile.Encode(Sealed);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), 3);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));

        var error = Assert.Throws<CorruptionException>(() => HeaderFile.Decode(bytes, "/store/headers.one"));

        Assert.Contains("HF7", error.Reason, StringComparison.Ordinal);
    }
}
