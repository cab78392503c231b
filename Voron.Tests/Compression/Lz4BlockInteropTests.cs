using Voron.Compression;
using Xunit.Abstractions;

namespace Voron.Tests.Compression;

/// <summary>
/// Lz4Block speaks the public LZ4 block format: the reference library (liblz4) decompresses what
/// Compress writes, and Decompress reads what liblz4 writes. These tests fail, saying how to
/// install it, when liblz4.so.1 is missing.
/// </summary>
public sealed class Lz4BlockInteropTests(ITestOutputHelper output)
{
    [Fact]
    public void Compress_writes_blocks_that_liblz4_decompresses_to_the_input()
    {
        LibLz4.EnsureLoaded();
        var seed = TestSeed.Next(output, nameof(Compress_writes_blocks_that_liblz4_decompresses_to_the_input));
        var random = new Random(seed);
        foreach (var (name, input) in Inputs(random))
        {
            var compressed = new byte[Lz4Block.MaxCompressedLength(input.Length)];
            var length = Lz4Block.Compress(input, compressed, acceleration: random.Next(3) == 0 ? random.Next(2, 50) : 1);
            var restored = new byte[input.Length + 1]; // liblz4 is not handed an empty destination

            var written = LibLz4.Decompress(compressed.AsSpan(0, length), restored);

            Assert.True(written == input.Length, $"seed {seed}, {name} ({input.Length} bytes): liblz4 returned {written}");
            Assert.True(input.AsSpan().SequenceEqual(restored.AsSpan(0, written)), $"seed {seed}, {name}: bytes differ");
        }
    }

    [Fact]
    public void Decompress_reads_blocks_that_liblz4_compressed()
    {
        LibLz4.EnsureLoaded();
        var seed = TestSeed.Next(output, nameof(Decompress_reads_blocks_that_liblz4_compressed));
        var random = new Random(seed);
        foreach (var (name, input) in Inputs(random))
        {
            var compressed = new byte[Lz4Block.MaxCompressedLength(input.Length)];
            var length = LibLz4.Compress(input.Length == 0 ? new byte[1].AsSpan(0, 0) : input, compressed, acceleration: random.Next(3) == 0 ? random.Next(2, 50) : 1);
            Assert.True(length > 0, $"seed {seed}, {name}: liblz4 failed to compress");
            var restored = new byte[input.Length];

            var written = Lz4Block.Decompress(compressed.AsSpan(0, length), restored);

            Assert.True(written == input.Length, $"seed {seed}, {name} ({input.Length} bytes): decompressed {written}");
            Assert.True(input.AsSpan().SequenceEqual(restored), $"seed {seed}, {name}: bytes differ");
        }
    }

    [Fact]
    public void Compress_ratio_is_within_10_percent_of_liblz4_on_json()
    {
        LibLz4.EnsureLoaded();
        var input = Lz4TestData.Json(new Random(11), 1 << 20);
        var buffer = new byte[Lz4Block.MaxCompressedLength(input.Length)];

        var ours = Lz4Block.Compress(input, buffer);
        var theirs = LibLz4.Compress(input, buffer);

        output.WriteLine($"JSON {input.Length} bytes: Lz4Block {ours} (ratio {(double)input.Length / ours:F2}), liblz4 {theirs} (ratio {(double)input.Length / theirs:F2})");
        Assert.True(ours <= theirs * 1.1, $"Lz4Block wrote {ours} bytes, liblz4 {theirs}");
    }

    [Fact]
    public void Decompress_accepts_a_damaged_block_only_when_liblz4_decodes_it_to_the_same_bytes()
    {
        // Decompress is at least as strict as LZ4_decompress_safe: a block it accepts obeys the
        // format, so the reference decoder must produce the same output from it.
        LibLz4.EnsureLoaded();
        var seed = TestSeed.Next(output, nameof(Decompress_accepts_a_damaged_block_only_when_liblz4_decodes_it_to_the_same_bytes));
        var random = new Random(seed);
        var (bothAccept, bothReject, onlyLibLz4Accepts) = (0, 0, 0);
        for (var i = 0; i < 3000; i++)
        {
            var input = Lz4TestData.AnyShape(random);
            if (input.Length > 20_000)
            {
                input = input[..random.Next(1, 20_000)];
            }

            var block = Lz4BlockMalformedTests.Damage(random, Lz4BlockRoundTripTests.Compress(input));
            var ours = new byte[input.Length];
            var theirs = new byte[input.Length];
            int? oursWritten;
            try
            {
                oursWritten = Lz4Block.Decompress(block, ours);
            }
            catch (InvalidDataException)
            {
                oursWritten = null;
            }

            var theirsWritten = block.Length == 0 || input.Length == 0 ? -1 : LibLz4.Decompress(block, theirs);
            if (oursWritten is { } written && input.Length > 0)
            {
                Assert.True(theirsWritten == written, $"seed {seed}, input {i}: Lz4Block produced {written} bytes, liblz4 returned {theirsWritten}");
                Assert.True(ours.AsSpan(0, written).SequenceEqual(theirs.AsSpan(0, written)), $"seed {seed}, input {i}: outputs differ");
                bothAccept++;
            }
            else if (theirsWritten >= 0)
            {
                onlyLibLz4Accepts++;
            }
            else
            {
                bothReject++;
            }
        }

        output.WriteLine($"both accept {bothAccept}, both reject {bothReject}, only liblz4 accepts {onlyLibLz4Accepts}");
    }

    private static IEnumerable<(string Name, byte[] Input)> Inputs(Random random)
    {
        yield return ("empty", []);
        for (var length = 1; length <= 20; length++)
        {
            yield return ($"{length} random bytes", Lz4TestData.RandomBytes(random, length));
            yield return ($"{length} zeros", new byte[length]);
        }

        yield return ("1 MiB of zeros", new byte[1 << 20]);
        yield return ("64 KiB random", Lz4TestData.RandomBytes(random, 64 * 1024));
        yield return ("256 KiB JSON", Lz4TestData.Json(random, 256 * 1024));
        foreach (var period in new[] { 1, 2, 3, 7 })
        {
            yield return ($"period {period} run", Lz4TestData.Run(random, period, random.Next(13, 5000)));
        }

        for (var i = 0; i < 20; i++)
        {
            yield return ($"sparse page {i}", Lz4TestData.SparsePage(random));
        }

        for (var i = 0; i < 500; i++)
        {
            yield return ($"random shape {i}", Lz4TestData.AnyShape(random));
        }
    }
}
