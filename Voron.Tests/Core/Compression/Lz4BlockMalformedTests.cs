using Voron.Compression;

namespace Voron.Tests.Core.Compression;

/// <summary>
/// Decompress reads bytes from disk: a block that does not decode (LB1 in Lz4Block.cs) throws
/// InvalidDataException, and nothing else ever happens — no other exception, no access outside
/// the two spans, no endless loop.
/// </summary>
public sealed class Lz4BlockMalformedTests(ITestOutputHelper output)
{
    private static readonly byte[] Abcd = "abcd"u8.ToArray();
    private static readonly byte[] Tail = "12345"u8.ToArray();

    [Fact]
    public void Decompress_returns_0_when_block_is_empty() =>
        Assert.Equal(0, Lz4Block.Decompress([], new byte[100])); // the caller's exact-size check (LB2) catches a record that claims more

    [Fact]
    public void Decompress_throws_when_block_is_cut_inside_literals()
    {
        var block = new Lz4Sequences().Sequence(Abcd, 4, 10).Last(Tail).ToArray();

        AssertMalformed(block[..3], 100);
    }

    [Fact]
    public void Decompress_throws_when_block_is_cut_inside_an_offset()
    {
        var block = new Lz4Sequences().Sequence(Abcd, 4, 10).Last(Tail).ToArray();

        AssertMalformed(block[..6], 100);
    }

    [Fact]
    public void Decompress_throws_when_block_is_cut_inside_length_bytes()
    {
        var block = new Lz4Sequences().Last(new byte[15 + 255 + 10]).ToArray();

        AssertMalformed(block[..2], 1000);
    }

    [Fact]
    public void Decompress_throws_when_block_is_cut_right_after_a_match()
    {
        var block = new Lz4Sequences().Sequence(Abcd, 4, 10).Last(Tail).ToArray();

        AssertMalformed(block[..7], 100);
    }

    [Fact]
    public void Decompress_returns_fewer_bytes_when_block_is_cut_right_after_literals()
    {
        // A prefix ending with literals is itself a valid block: the caller's length check
        // (the exact expected size) is what catches it.
        var block = new Lz4Sequences().Sequence(Abcd, 4, 10).Last(Tail).ToArray();

        var written = Lz4Block.Decompress(block.AsSpan(0, 5), new byte[19]);

        Assert.Equal(4, written);
    }

    [Fact]
    public void Decompress_stays_inside_the_destination_when_offset_is_zero()
    {
        // The format calls offset 0 invalid, but K4os's decoder (like liblz4's) copies from the
        // current output position instead of refusing it: the bytes produced are garbage, never a
        // read or write outside the two spans. Journal payloads are checksummed before they are
        // decoded, and the entries decoded are validated (R8 in JournalRecord.cs).
        var block = new Lz4Sequences().Sequence(Abcd, 0, 8).Last(Tail).ToArray();

        var outcome = DecodeGuarded(block, 100, new Random(1), "offset 0");

        Assert.StartsWith("ok 17", outcome, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(5)]
    [InlineData(65535)]
    public void Decompress_throws_when_offset_reaches_before_the_output_start(int offset)
    {
        var block = new Lz4Sequences().Sequence(Abcd, offset, 8).Last(Tail).ToArray();

        AssertMalformed(block, 100);
    }

    [Fact]
    public void Decompress_throws_when_literal_length_runs_past_the_block_end()
    {
        // 15 + 10 = 25 literals announced, 3 present.
        AssertMalformed([0xF0, 10, 1, 2, 3], 100);
    }

    [Fact]
    public void Decompress_throws_when_literals_overflow_the_destination()
    {
        var block = new Lz4Sequences().Last(new byte[40]).ToArray();

        AssertMalformed(block, 39);
    }

    [Theory]
    [InlineData(18, 20)]   // no length bytes
    [InlineData(100, 90)]  // length bytes
    [InlineData(100, 103)] // one byte short
    public void Decompress_throws_when_a_match_runs_past_the_destination_end(int matchLength, int capacity)
    {
        var block = new Lz4Sequences().Sequence(Abcd, 4, matchLength).Last(Tail).ToArray();

        AssertMalformed(block, capacity);
    }

    [Fact]
    public void Decompress_throws_promptly_when_a_length_is_a_huge_run_of_255_bytes()
    {
        var block = new byte[10_000_000];
        Array.Fill(block, (byte)255);
        block[0] = 0xF0;

        // Stops as soon as the length exceeds the destination...
        AssertMalformed(block, 1 << 20);

        // ...or at the block end when the destination is larger than any length the block can say.
        AssertMalformed(block[..1000], int.MaxValue / 256);
    }

    [Fact]
    public void Decompress_throws_when_a_match_length_is_a_run_of_255_bytes_to_the_block_end()
    {
        var block = new Lz4Sequences().Raw(0x4F).Raw(Abcd).Raw(4, 0).Raw([.. Enumerable.Repeat((byte)255, 50)]).ToArray();

        AssertMalformed(block, 100_000);
    }

    [Fact]
    public void Decompress_accepts_a_block_that_breaks_only_the_end_rules()
    {
        // The end rules (5 last literals, no match within 12 bytes of the end) are the encoder's,
        // so that decoders may copy in wide chunks; K4os's decoder does not insist on them, and
        // what it produces stays inside the destination.
        var fewLiterals = new Lz4Sequences().Sequence(Abcd, 4, 20).Last("1234"u8).ToArray();
        var lateMatch = new Lz4Sequences().Sequence(Abcd, 4, 6).Last(Tail).ToArray();

        Assert.Equal(4 + 20 + 4, Lz4Block.Decompress(fewLiterals, new byte[100]));
        Assert.Equal(4 + 6 + 5, Lz4Block.Decompress(lateMatch, new byte[100]));
    }

    [Fact]
    public void Decompress_accepts_a_last_match_exactly_12_bytes_before_the_end()
    {
        var block = new Lz4Sequences().Sequence(Abcd, 4, 7).Last(Tail).ToArray();

        Assert.Equal(16, Lz4Block.Decompress(block, new byte[16]));
    }

    [Fact]
    public void Decompress_throws_when_source_and_destination_overlap()
    {
        var buffer = new byte[100];

        Assert.Throws<ArgumentException>(() => Lz4Block.Decompress(buffer.AsSpan(0, 10), buffer.AsSpan(5)));
    }

    [Fact]
    public void Decompress_returns_or_throws_invalid_data_when_valid_blocks_are_damaged()
    {
        var seed = TestSeed.Next(output, nameof(Decompress_returns_or_throws_invalid_data_when_valid_blocks_are_damaged));
        var random = new Random(seed);
        var (accepted, rejected) = (0, 0);
        for (var i = 0; i < 3000; i++)
        {
            var input = Lz4TestData.AnyShape(random);
            if (input.Length > 20_000)
            {
                input = input[..random.Next(20_000)];
            }

            var block = Damage(random, Lz4BlockRoundTripTests.Compress(input));
            var context = $"seed {seed}, input {i} ({input.Length} bytes, damaged block of {block.Length})";

            var first = DecodeGuarded(block, input.Length, random, context);
            var second = DecodeGuarded(block, input.Length, random, context);

            // Different bytes around the source span must not change the outcome: nothing
            // outside it is read.
            Assert.True(first == second, $"{context}: outcome depends on bytes outside the source: '{first}' vs '{second}'");
            if (first.StartsWith("ok", StringComparison.Ordinal))
            {
                accepted++;
            }
            else
            {
                rejected++;
            }
        }

        output.WriteLine($"accepted {accepted}, rejected {rejected}");
        Assert.True(rejected > 1000, $"seed {seed}: only {rejected} of the damaged blocks were rejected");
    }

    /// <summary>Flips bytes, truncates, extends or replaces a valid block.</summary>
    internal static byte[] Damage(Random random, byte[] block)
    {
        if (block.Length == 0)
        {
            return Lz4TestData.RandomBytes(random, random.Next(1, 300)); // the empty input's block is empty
        }

        var damaged = block.ToList();
        switch (random.Next(6))
        {
            case 0:
            case 1:
                var flips = random.Next(1, 5);
                for (var f = 0; f < flips && damaged.Count > 0; f++)
                {
                    damaged[random.Next(damaged.Count)] = (byte)random.Next(256);
                }

                break;
            case 2:
                var keep = random.Next(damaged.Count);
                damaged.RemoveRange(keep, damaged.Count - keep);
                break;
            case 3:
                damaged[random.Next(damaged.Count)] ^= (byte)(1 << random.Next(8));
                damaged.RemoveRange(damaged.Count / 2, random.Next(damaged.Count / 2));
                break;
            case 4:
                damaged.AddRange(Lz4TestData.RandomBytes(random, random.Next(1, 40)));
                break;
            default:
                return Lz4TestData.RandomBytes(random, random.Next(0, 300));
        }

        return [.. damaged];
    }

    /// <summary>
    /// Decodes with the source and destination spans inside larger buffers: random bytes around
    /// the source, a guard pattern around the destination that must survive. Returns "ok", the
    /// length and a digest of the output, or the InvalidDataException's message; any other
    /// exception fails the test.
    /// </summary>
    private static string DecodeGuarded(byte[] block, int capacity, Random random, string context)
    {
        const int Guard = 64;
        var source = Lz4TestData.RandomBytes(random, block.Length + (2 * Guard));
        block.CopyTo(source, Guard);
        var destination = new byte[capacity + (2 * Guard)];
        Array.Fill(destination, (byte)0xA5);

        string outcome;
        try
        {
            var written = Lz4Block.Decompress(source.AsSpan(Guard, block.Length), destination.AsSpan(Guard, capacity));
            Assert.InRange(written, 0, capacity);
            outcome = $"ok {written} {Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(destination.AsSpan(Guard, written)))}";
        }
        catch (InvalidDataException error)
        {
            Assert.StartsWith("Malformed LZ4 block", error.Message, StringComparison.Ordinal);
            outcome = error.Message;
        }
        catch (Exception error)
        {
            Assert.Fail($"{context}: {error.GetType().Name} instead of InvalidDataException: {error}");
            throw;
        }

        Assert.True(destination.AsSpan(0, Guard).IndexOfAnyExcept((byte)0xA5) < 0, $"{context}: wrote before the destination");
        Assert.True(destination.AsSpan(Guard + capacity).IndexOfAnyExcept((byte)0xA5) < 0, $"{context}: wrote after the destination");
        return outcome;
    }

    private static void AssertMalformed(byte[] block, int capacity)
    {
        var error = Assert.Throws<InvalidDataException>(() => Lz4Block.Decompress(block, new byte[capacity]));
        Assert.EndsWith("(LB1).", error.Message, StringComparison.Ordinal);
    }
}
