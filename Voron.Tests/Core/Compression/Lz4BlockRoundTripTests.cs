using Voron.Compression;

namespace Voron.Tests.Core.Compression;

/// <summary>
/// Compress then Decompress gives back the input, for every input shape a journal payload can
/// have, and the ratio on typical data is what makes compressing worth it.
/// </summary>
public sealed class Lz4BlockRoundTripTests(ITestOutputHelper output)
{
    [Fact]
    public void Compress_writes_an_empty_block_when_input_is_empty()
    {
        var compressed = RoundTrip([]);

        Assert.Empty(compressed);
    }

    [Fact]
    public void Decompress_reads_the_one_zero_byte_block_as_the_empty_input()
    {
        // The engine's own codec (until commit 2123e8b) wrote the empty input so, as liblz4 does;
        // K4os alone would refuse it.
        Assert.Equal(0, Lz4Block.Decompress([0x00], []));
        Assert.Equal(0, Lz4Block.Decompress([0x00], new byte[10]));
    }

    [Fact]
    public void RoundTrip_restores_input_when_input_is_1_to_20_bytes()
    {
        var random = new Random(1);
        for (var length = 1; length <= 20; length++)
        {
            RoundTrip(Lz4TestData.RandomBytes(random, length));
            RoundTrip(new byte[length]);
            RoundTrip(Lz4TestData.Run(random, 2, length));
        }
    }

    [Fact]
    public void Compress_stores_literals_only_when_input_is_12_bytes()
    {
        var compressed = RoundTrip(new byte[12]);

        Assert.Equal(1 + 12, compressed.Length); // the token, then the 12 bytes as they are
        Assert.Equal(12 << 4, compressed[0]);
    }

    [Fact]
    public void Compress_finds_a_match_when_input_is_13_bytes()
    {
        var compressed = RoundTrip(new byte[13]);

        // 1 literal, a 7-byte match at offset 1, then the 5 last literals.
        Assert.Equal([(1 << 4) | (7 - 4), 0, 1, 0, 5 << 4, 0, 0, 0, 0, 0], compressed);
    }

    [Fact]
    public void RoundTrip_restores_input_when_input_is_1_MiB_of_zeros_and_compresses_it_50x()
    {
        var input = new byte[1 << 20];

        var compressed = RoundTrip(input);

        Assert.True(compressed.Length * 50 <= input.Length, $"{input.Length} zero bytes compressed to {compressed.Length}");
    }

    [Fact]
    public void RoundTrip_restores_input_when_input_is_incompressible()
    {
        var input = Lz4TestData.RandomBytes(new Random(2), 64 * 1024);

        var compressed = RoundTrip(input);

        Assert.True(compressed.Length <= Lz4Block.MaxCompressedLength(input.Length));
        Assert.True(compressed.Length > input.Length, "random bytes do not compress");
    }

    [Fact]
    public void RoundTrip_restores_input_when_input_is_json_and_compresses_it_at_least_2x()
    {
        var input = Lz4TestData.Json(new Random(3), 256 * 1024);

        var compressed = RoundTrip(input);

        output.WriteLine($"JSON: {input.Length} -> {compressed.Length} bytes, ratio {(double)input.Length / compressed.Length:F2}");
        Assert.True(compressed.Length * 2 <= input.Length, $"{input.Length} JSON bytes compressed to {compressed.Length}");
    }

    [Fact]
    public void RoundTrip_restores_input_when_json_documents_are_small()
    {
        var random = new Random(4);
        foreach (var size in new[] { 50, 200, 1000, 4000 })
        {
            var input = Lz4TestData.Json(random, size);
            Assert.Contains("\"customer\"", Encoding.ASCII.GetString(input), StringComparison.Ordinal);
            RoundTrip(input);
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(9)]
    [InlineData(16)]
    public void RoundTrip_restores_input_when_matches_overlap_with_a_short_period(int period)
    {
        var random = new Random(period);
        foreach (var length in new[] { 13, 20, 31, 100, 1000, 70_000 })
        {
            var input = Lz4TestData.Run(random, period, length);
            var compressed = RoundTrip(input);
            if (length >= 1000)
            {
                Assert.True(compressed.Length * 4 < length, $"period {period}, {length} bytes compressed to {compressed.Length}");
            }
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(5)]
    [InlineData(6)]
    [InlineData(7)]
    [InlineData(8)]
    [InlineData(15)]
    public void Decompress_repeats_the_pattern_when_a_match_overlaps_its_own_output(int offset)
    {
        // Every match length from 4 to 40, with the destination exactly the output size (the
        // careful copy near the end) and with room to spare (the chunked copy).
        for (var matchLength = 4; matchLength <= 40; matchLength++)
        {
            var pattern = Enumerable.Range(1, offset).Select(i => (byte)i).ToArray();
            var tail = "12345678"u8.ToArray(); // 8 last literals keep even a 4-byte match 12 bytes from the end (the end rules)
            var block = new Lz4Sequences().Sequence(pattern, offset, matchLength).Last(tail).ToArray();
            var expected = new byte[offset + matchLength + tail.Length];
            for (var i = 0; i < offset + matchLength; i++)
            {
                expected[i] = pattern[i % offset];
            }

            tail.CopyTo(expected, offset + matchLength);

            foreach (var slack in new[] { 0, 7, 64 })
            {
                var destination = new byte[expected.Length + slack];
                var written = Lz4Block.Decompress(block, destination);
                Assert.Equal(expected.Length, written);
                Assert.Equal(expected, destination[..written]);
            }
        }
    }

    [Fact]
    public void RoundTrip_restores_input_when_input_is_sparse_8_KiB_pages()
    {
        var random = new Random(5);
        for (var i = 0; i < 50; i++)
        {
            var page = Lz4TestData.SparsePage(random);
            var compressed = RoundTrip(page);
            Assert.True(compressed.Length < page.Length / 2, $"sparse page {i} compressed to {compressed.Length}");
        }
    }

    [Fact]
    public void RoundTrip_restores_input_when_literal_and_match_lengths_need_many_length_bytes()
    {
        var random = new Random(6);
        var input = new List<byte>();
        input.AddRange(Lz4TestData.RandomBytes(random, 15 + 255 + 255)); // literal lengths on a 255 boundary
        input.AddRange(new byte[19 + 255]);                               // and a match length on one
        input.AddRange(Lz4TestData.RandomBytes(random, 1000));
        input.AddRange(new byte[100_000]);

        RoundTrip([.. input]);
    }

    [Fact]
    public void RoundTrip_restores_input_when_repeats_are_further_apart_than_the_64_KiB_window()
    {
        var random = new Random(7);
        var json = Lz4TestData.Json(random, 30_000);
        byte[] input = [.. json, .. Lz4TestData.RandomBytes(random, 70_000), .. json];

        RoundTrip(input);
    }

    [Fact]
    public void Compress_and_Decompress_allocate_nothing_after_the_first_call_on_a_thread()
    {
        var input = Lz4TestData.Json(new Random(12), 4 << 20);
        var compressed = new byte[Lz4Block.MaxCompressedLength(input.Length)];
        var restored = new byte[input.Length];

        Assert.Equal(0, Allocations.Fewest(() =>
        {
            var length = Lz4Block.Compress(input, compressed);
            Lz4Block.Decompress(compressed.AsSpan(0, length), restored);
        }));
    }

    [Fact]
    public void Compress_throws_when_destination_is_smaller_than_the_output()
    {
        var input = Lz4TestData.RandomBytes(new Random(9), 1000);

        var error = Assert.Throws<ArgumentException>(() => Lz4Block.Compress(input, new byte[500]));

        Assert.Contains("MaxCompressedLength", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Compress_throws_when_source_and_destination_overlap()
    {
        var buffer = new byte[1000];

        Assert.Throws<ArgumentException>(() => Lz4Block.Compress(buffer.AsSpan(0, 100), buffer.AsSpan(50)));
    }

    [Theory]
    [InlineData(0, 16)]
    [InlineData(255, 255 + 1 + 16)]
    [InlineData(1000, 1000 + 3 + 16)]
    public void MaxCompressedLength_allows_one_length_byte_per_255_input_bytes(int input, int expected) =>
        Assert.Equal(expected, Lz4Block.MaxCompressedLength(input));

    [Fact]
    public void MaxCompressedLength_throws_when_input_length_is_negative_or_too_large()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Lz4Block.MaxCompressedLength(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => Lz4Block.MaxCompressedLength(Lz4Block.MaxInputLength + 1));
    }

    [Fact]
    public void Decompress_returns_the_output_length_when_destination_is_larger()
    {
        var input = Lz4TestData.Json(new Random(10), 5000);
        var compressed = Compress(input);
        var destination = new byte[input.Length + 1000];

        var written = Lz4Block.Decompress(compressed, destination);

        Assert.Equal(input.Length, written);
        Assert.Equal(input, destination[..written]);
    }

    [Fact]
    public void RoundTrip_restores_input_for_thousands_of_random_inputs_of_every_shape()
    {
        var seed = TestSeed.Next(output, nameof(RoundTrip_restores_input_for_thousands_of_random_inputs_of_every_shape));
        var random = new Random(seed);
        for (var i = 0; i < 3000; i++)
        {
            var input = Lz4TestData.AnyShape(random);
            var compressed = new byte[Lz4Block.MaxCompressedLength(input.Length)];
            var length = Lz4Block.Compress(input, compressed);

            // Exact-size destinations reach the careful copies near the end; slack reaches the fast ones.
            var restored = new byte[input.Length + (random.Next(2) == 0 ? 0 : random.Next(1, 64))];
            var written = Lz4Block.Decompress(compressed.AsSpan(0, length), restored);

            Assert.True(written == input.Length, $"seed {seed}, input {i} ({input.Length} bytes): decompressed {written} bytes");
            Assert.True(input.AsSpan().SequenceEqual(restored.AsSpan(0, written)), $"seed {seed}, input {i} ({input.Length} bytes): bytes differ");
        }
    }

    /// <summary>Compresses, checks the block decompresses to the input, and returns the block.</summary>
    internal static byte[] RoundTrip(byte[] input)
    {
        var compressed = Compress(input);
        var restored = new byte[input.Length];

        var written = Lz4Block.Decompress(compressed, restored);

        Assert.Equal(input.Length, written);
        Assert.Equal(input, restored);
        return compressed;
    }

    internal static byte[] Compress(byte[] input)
    {
        var compressed = new byte[Lz4Block.MaxCompressedLength(input.Length)];
        var length = Lz4Block.Compress(input, compressed);
        return compressed[..length];
    }
}
