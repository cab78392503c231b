namespace Voron.Tests.Core.Checksums;

/// <summary>
/// Crc32C computes long buffers as three interleaved streams joined by shifts (Crc32C.cs); every
/// checksum on disk comes from it, so it must give the values of the plain bytewise definition.
/// </summary>
public sealed class Crc32CInterleavedTests
{
    /// <summary>The definition: reflected CRC32C, one bit at a time, on a running register.</summary>
    private static uint Reference(uint crc, ReadOnlySpan<byte> data)
    {
        foreach (var b in data)
        {
            crc ^= b;
            for (var bit = 0; bit < 8; bit++)
            {
                crc = (crc >> 1) ^ ((crc & 1) != 0 ? 0x82F63B78u : 0);
            }
        }

        return crc;
    }

    [Fact]
    public void Known_answer_of_the_standard_check_string()
    {
        // CRC32C("123456789") = 0xE3069283, the catalogue's check value.
        Assert.Equal(0xE3069283u, Crc32C.Compute("123456789"u8));
    }

    [Fact]
    public void Random_buffers_of_every_size_up_to_20000_bytes_match_the_bytewise_definition()
    {
        var random = new Random(2211);
        var buffer = new byte[20_008];
        for (var i = 0; i < 3000; i++)
        {
            var length = i < 600 ? i * 7 % 20_001 : random.Next(0, 20_001); // small sizes densely, then any
            var offset = random.Next(0, 8); // unaligned starts too
            random.NextBytes(buffer);
            var seed = (uint)random.NextInt64();
            var data = buffer.AsSpan(offset, length);
            Assert.True(Reference(seed, data) == Crc32C.Append(seed, data), $"length {length}, offset {offset}");
        }
    }

    [Theory]
    [InlineData(Constants.PageSize)]
    [InlineData(Constants.PageSize - 16)]
    [InlineData(2 * Constants.PageSize)]
    [InlineData(508)]
    [InlineData(3 * Crc32C.LargeStream)]
    [InlineData(3 * Crc32C.SmallStream)]
    [InlineData((3 * Crc32C.SmallStream) - 1)]
    public void Block_boundaries_and_the_sizes_checksummed_on_disk_match(int length)
    {
        var random = new Random(length);
        var data = new byte[length];
        for (var i = 0; i < 50; i++)
        {
            random.NextBytes(data);
            Assert.Equal(~Reference(0xFFFFFFFF, data), Crc32C.Compute(data));
        }
    }

    [Fact]
    public void A_page_checksum_still_skips_its_checksum_field()
    {
        var random = new Random(7);
        var page = new byte[Constants.PageSize];
        random.NextBytes(page);
        var copy = (byte[])page.Clone();
        copy.AsSpan(Voron.Paging.PageHeader.ChecksumOffset, 4).Clear();
        Assert.Equal(~Reference(0xFFFFFFFF, copy), Voron.Paging.PageHeader.ComputeChecksum(page));
    }

    [Fact]
    public void Shifting_a_register_equals_feeding_it_zero_bytes_on_both_paths()
    {
        var random = new Random(5);
        for (var i = 0; i < 500; i++)
        {
            var crc = (uint)random.NextInt64();
            var bytes = i < 100 ? 5 + i : random.Next(5, 20_000);
            var expected = Reference(crc, new byte[bytes]);
            Assert.Equal(expected, Crc32C.ShiftReference(crc, bytes));
            Assert.Equal(expected, Crc32C.ShiftFast(crc, bytes));
        }
    }

    [Fact]
    public void Multiplying_by_x_to_the_0_is_the_identity_and_the_product_commutes()
    {
        var random = new Random(9);
        for (var i = 0; i < 1000; i++)
        {
            var a = (uint)random.NextInt64();
            var b = (uint)random.NextInt64();
            Assert.Equal(a, Crc32C.Multiply(a, Crc32C.PowerOfX(0)));
            Assert.Equal(Crc32C.Multiply(a, b), Crc32C.Multiply(b, a));
        }
    }
}
