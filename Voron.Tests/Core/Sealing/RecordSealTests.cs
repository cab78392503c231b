using Voron.Sealing;
using Xunit.Abstractions;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>RecordSeal: a byte range sealed as nonce | ciphertext | tag with the caller's AAD.</summary>
public sealed class RecordSealTests(ITestOutputHelper output)
{
    private static readonly byte[] Aad = "record header of tx 17"u8.ToArray();

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void A_range_round_trips_copied_or_in_place(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var key = StoreKey(algorithm);
        using var aead = key.CreateJournalAead();
        var seal = new RecordSeal(aead, new NonceSource());
        var payload = RandomBytes(10_000);

        var sealedRange = new byte[RecordSeal.SealedLength(payload.Length)];
        seal.Seal(payload, sealedRange, Aad);
        var opened = new byte[payload.Length];
        seal.Open(sealedRange, opened, Aad, DataFile, 0, "record tx 17");
        Assert.Equal(payload, opened);

        var inPlace = new byte[RecordSeal.SealedLength(payload.Length)];
        payload.CopyTo(inPlace.AsSpan(RecordSeal.PayloadRange(inPlace.Length)));
        seal.Seal(inPlace.AsSpan(RecordSeal.PayloadRange(inPlace.Length)), inPlace, Aad);
        Assert.Equal(-1, inPlace.AsSpan().IndexOf(payload.AsSpan(0, 64)));
        Assert.True(seal.TryOpen(inPlace, inPlace.AsSpan(RecordSeal.PayloadRange(inPlace.Length)), Aad));
        Assert.Equal(payload, inPlace.AsSpan(RecordSeal.PayloadRange(inPlace.Length)).ToArray());
    }

    [Fact]
    public void An_empty_range_seals_to_its_nonce_and_tag_and_still_authenticates()
    {
        using var key = StoreKey(SealFormat.Preferred);
        using var aead = key.CreateJournalAead();
        var seal = new RecordSeal(aead, new NonceSource());
        var sealedRange = new byte[SealFormat.RecordOverhead];

        seal.Seal([], sealedRange, Aad);

        Assert.True(seal.TryOpen(sealedRange, [], Aad));
        Assert.False(seal.TryOpen(sealedRange, [], "another header"u8));
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void Every_single_bit_flip_in_a_sealed_range_or_its_AAD_is_CorruptionException(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        var seed = TestSeed.Next(output, nameof(Every_single_bit_flip_in_a_sealed_range_or_its_AAD_is_CorruptionException));
        var random = new Random(seed);
        using var key = StoreKey(algorithm);
        using var aead = key.CreateJournalAead();
        var seal = new RecordSeal(aead, new NonceSource());
        var payload = new byte[3000];
        random.NextBytes(payload);
        var sealedRange = new byte[RecordSeal.SealedLength(payload.Length)];
        seal.Seal(payload, sealedRange, Aad);
        var destination = new byte[payload.Length];

        var bits = Enumerable.Range(0, SealFormat.NonceSize * 8)
            .Concat(Enumerable.Range((sealedRange.Length - SealFormat.TagSize) * 8, SealFormat.TagSize * 8))
            .Concat(Enumerable.Range(0, 1000).Select(_ => random.Next(sealedRange.Length * 8)));
        foreach (var bit in bits)
        {
            var damaged = sealedRange.ToArray();
            damaged[bit / 8] ^= (byte)(1 << (bit % 8));
            var error = Assert.Throws<CorruptionException>(() => seal.Open(damaged, destination, Aad, DataFile, 8192, "record tx 17"));
            Assert.True(error.Offset == 8192 && error.Reason.StartsWith("record tx 17", StringComparison.Ordinal), $"bit {bit} (seed {seed}): {error.Message}");
            Assert.False(destination.AsSpan().ContainsAnyExcept((byte)0), $"bit {bit} (seed {seed}): plaintext left in the destination");
        }

        for (var bit = 0; bit < Aad.Length * 8; bit++)
        {
            var aad = Aad.ToArray();
            aad[bit / 8] ^= (byte)(1 << (bit % 8));
            Assert.False(seal.TryOpen(sealedRange, destination, aad), $"AAD bit {bit} (seed {seed})");
        }
    }

    [Fact]
    public void A_truncated_range_is_CorruptionException_not_an_exception_of_the_AEAD()
    {
        using var key = StoreKey(SealFormat.Preferred);
        using var aead = key.CreateJournalAead();
        var seal = new RecordSeal(aead, new NonceSource());
        var sealedRange = new byte[RecordSeal.SealedLength(100)];
        seal.Seal(new byte[100], sealedRange, Aad);

        Assert.Throws<CorruptionException>(() => seal.Open(sealedRange.AsSpan(0, 20), [], Aad, DataFile, 0, "record tx 17"));
        Assert.Throws<CorruptionException>(() => seal.Open(sealedRange.AsSpan(0, 100), new byte[72], Aad, DataFile, 0, "record tx 17"));
    }

    [Fact]
    public void A_range_sealed_under_the_journal_subkey_does_not_open_under_the_pages_subkey()
    {
        using var key = StoreKey(SealFormat.Preferred);
        using var journal = key.CreateJournalAead();
        using var pages = key.CreatePagesAead();
        var sealedRange = new byte[RecordSeal.SealedLength(100)];
        new RecordSeal(journal, new NonceSource()).Seal(new byte[100], sealedRange, Aad);

        Assert.False(new RecordSeal(pages, new NonceSource()).TryOpen(sealedRange, new byte[100], Aad));
    }
}
