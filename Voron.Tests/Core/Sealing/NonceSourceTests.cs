using Voron.Sealing;

namespace Voron.Tests.Core.Sealing;

/// <summary>The nonce source of SL1: prefix, counter, and a new prefix before the counter wraps.</summary>
public sealed class NonceSourceTests
{
    [Fact]
    public void Nonces_are_the_prefix_then_a_little_endian_counter_from_zero()
    {
        var draws = 0;
        var source = new NonceSource(NonceSource.CounterBits, destination =>
        {
            draws++;
            destination.Fill(0xAB);
        });
        var nonce = new byte[SealFormat.NonceSize];

        source.Next(nonce);
        Assert.Equal([0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0, 0, 0, 0], nonce);
        source.Next(nonce);
        source.Next(nonce);
        Assert.Equal(2u, BinaryPrimitives.ReadUInt32LittleEndian(nonce.AsSpan(SealFormat.NoncePrefixSize)));
        Assert.Equal(1, draws);
        Assert.Equal(1, source.PrefixesDrawn);
    }

    [Fact]
    public void A_new_prefix_is_drawn_when_the_counter_would_wrap_never_a_counter_that_starts_over()
    {
        byte next = 0;
        var source = new NonceSource(counterBits: 2, destination => destination.Fill(++next));
        var nonce = new byte[SealFormat.NonceSize];
        var seen = new HashSet<string>(StringComparer.Ordinal);

        for (var i = 0; i < 4 * 5; i++)
        {
            source.Next(nonce);
            Assert.True(seen.Add(Convert.ToHexString(nonce)), $"nonce {i} repeated: {Convert.ToHexString(nonce)}");
            Assert.Equal((uint)(i % 4), BinaryPrimitives.ReadUInt32LittleEndian(nonce.AsSpan(SealFormat.NoncePrefixSize)));
            Assert.Equal((byte)((i / 4) + 1), nonce[0]);
        }

        Assert.Equal(5, source.PrefixesDrawn);
    }

    [Fact]
    public void Two_sources_draw_their_own_prefixes()
    {
        var a = new byte[SealFormat.NonceSize];
        var b = new byte[SealFormat.NonceSize];

        new NonceSource().Next(a);
        new NonceSource().Next(b);

        Assert.NotEqual(a.AsSpan(0, SealFormat.NoncePrefixSize).ToArray(), b.AsSpan(0, SealFormat.NoncePrefixSize).ToArray());
    }

    [Fact]
    public void Concurrent_callers_never_get_the_same_nonce()
    {
        var source = new NonceSource(counterBits: 4, System.Security.Cryptography.RandomNumberGenerator.Fill);
        var seen = new System.Collections.Concurrent.ConcurrentDictionary<string, int>(StringComparer.Ordinal);

        Parallel.For(0, 8, worker =>
        {
            var nonce = new byte[SealFormat.NonceSize];
            for (var i = 0; i < 2000; i++)
            {
                source.Next(nonce);
                Assert.True(seen.TryAdd(Convert.ToHexString(nonce), worker));
            }
        });

        Assert.Equal(16_000, seen.Count);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(33)]
    public void A_counter_width_outside_1_to_32_bits_is_refused(int bits) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new NonceSource(bits, System.Security.Cryptography.RandomNumberGenerator.Fill));
}
