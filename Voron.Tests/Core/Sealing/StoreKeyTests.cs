using Voron.Sealing;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>The key type of SL2, SL5 and SL10: derivation, check value, validation, disposal.</summary>
public sealed class StoreKeyTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(16)]
    [InlineData(31)]
    [InlineData(33)]
    [InlineData(64)]
    public void Derive_refuses_a_key_that_is_not_256_bits(int length)
    {
        var error = Assert.Throws<ArgumentException>(() => Voron.Sealing.StoreKey.Derive(new byte[length], Salt(1), StoreId, SealFormat.Preferred));

        Assert.Contains("32 bytes", error.Message, StringComparison.Ordinal);
        Assert.Contains("RandomNumberGenerator", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Derive_refuses_a_key_of_zeros_and_a_salt_that_is_not_32_bytes()
    {
        Assert.Throws<ArgumentException>(() => Voron.Sealing.StoreKey.Derive(new byte[32], Salt(1), StoreId, SealFormat.Preferred));
        Assert.Throws<ArgumentException>(() => Voron.Sealing.StoreKey.Derive(Key(1), new byte[16], StoreId, SealFormat.Preferred));
        Assert.Throws<ArgumentOutOfRangeException>(() => Voron.Sealing.StoreKey.Derive(Key(1), Salt(1), StoreId, SealAlgorithm.None));
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void The_same_key_salt_and_store_derive_the_same_check_value(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var first = StoreKey(algorithm);
        using var again = StoreKey(algorithm);

        Assert.Equal(SealFormat.CheckValueSize, first.CheckValue.Length);
        Assert.True(again.Matches(first.CheckValue));
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void A_wrong_key_is_told_by_the_check_value(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var right = StoreKey(algorithm, keyFill: 1);
        using var wrong = StoreKey(algorithm, keyFill: 2);

        Assert.False(wrong.Matches(right.CheckValue));
        Assert.False(right.Matches(right.CheckValue[..8]));
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void Another_salt_store_id_or_algorithm_derives_other_subkeys(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var key = StoreKey(algorithm);
        using var otherSalt = StoreKey(algorithm, saltFill: 8);
        using var otherStore = StoreKey(algorithm, storeId: StoreId + 1);

        Assert.False(otherSalt.Matches(key.CheckValue));
        Assert.False(otherStore.Matches(key.CheckValue));
        var other = algorithm == SealAlgorithm.AesGcm ? SealAlgorithm.ChaCha20Poly1305 : SealAlgorithm.AesGcm;
        using var otherAlgorithm = StoreKey(other);
        Assert.False(otherAlgorithm.Matches(key.CheckValue));
    }

    [Fact]
    public void The_page_and_journal_subkeys_differ()
    {
        using var key = StoreKey(SealFormat.Preferred);
        using var pages = key.CreatePagesAead();
        using var journal = key.CreateJournalAead();
        var nonce = new byte[SealFormat.NonceSize];
        var tagOfPages = new byte[SealFormat.TagSize];
        var tagOfJournal = new byte[SealFormat.TagSize];
        var plaintext = new byte[64];

        pages.Encrypt(nonce, plaintext, new byte[64], tagOfPages, []);
        journal.Encrypt(nonce, plaintext, new byte[64], tagOfJournal, []);

        Assert.NotEqual(tagOfPages, tagOfJournal);
    }

    [Fact]
    public void ToString_names_the_store_and_never_key_material()
    {
        var userKey = Key(0x41);
        using var key = Voron.Sealing.StoreKey.Derive(userKey, Salt(7), StoreId, SealFormat.Preferred);

        var text = key.ToString();

        Assert.Contains(StoreId.ToString("x16", CultureInfo.InvariantCulture), text, StringComparison.Ordinal);
        Assert.DoesNotContain(Convert.ToHexString(userKey[..4]), text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(Convert.ToHexString(key.CheckValue[..4]), text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(Convert.ToBase64String(userKey)[..6], text, StringComparison.Ordinal);
    }

    [Fact]
    public void Dispose_clears_every_key_buffer_and_later_use_throws()
    {
        var key = StoreKey(SealFormat.Preferred);
        Assert.False(key.IsCleared);

        key.Dispose();
        key.Dispose();

        Assert.True(key.IsCleared);
        Assert.Throws<ObjectDisposedException>(() => key.CreatePagesAead());
        Assert.Throws<ObjectDisposedException>(() => key.CreateJournalAead());
        Assert.Throws<ObjectDisposedException>(() => key.Matches(new byte[SealFormat.CheckValueSize]));
    }

    [Fact]
    public void An_ephemeral_key_is_new_every_time()
    {
        using var first = Voron.Sealing.StoreKey.CreateEphemeral(StoreId, SealFormat.Preferred);
        using var second = Voron.Sealing.StoreKey.CreateEphemeral(StoreId, SealFormat.Preferred);

        Assert.False(second.Matches(first.CheckValue));
    }

    [Fact]
    public void A_new_salt_is_32_random_bytes()
    {
        Assert.Equal(SealFormat.SaltSize, Voron.Sealing.StoreKey.NewSalt().Length);
        Assert.NotEqual(Voron.Sealing.StoreKey.NewSalt(), Voron.Sealing.StoreKey.NewSalt());
    }
}
