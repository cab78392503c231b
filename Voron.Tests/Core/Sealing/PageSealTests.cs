using Voron.Paging;
using Voron.Sealing;
using Xunit.Abstractions;
using static Voron.Tests.Core.Sealing.SealingFixtures;

namespace Voron.Tests.Core.Sealing;

/// <summary>PageSeal: round trips, the plaintext header, and every way sealed bytes can be wrong (SL3, SL4, SL7).</summary>
public sealed class PageSealTests(ITestOutputHelper output)
{
    private const long PageNumber = 4711;
    private const long Offset = PageNumber * Constants.PageSize;

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void Open_gives_back_exactly_the_page_that_was_sealed(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var sealer = new PageSealer(algorithm);
        var seal = sealer.Seal;
        var page = LeafPage(PageNumber, new Random(1));
        var sealedPage = page.ToArray();

        seal.Seal(sealedPage);
        var opened = new byte[sealedPage.Length];
        seal.Open(sealedPage, opened, PageNumber, DataFile, Offset);

        Assert.Equal(page, opened);
        Assert.Equal(PageHeader.ComputeChecksum(page), PageHeader.GetChecksum(opened));
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void An_overflow_run_is_one_seal_and_opens_in_place(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var sealer = new PageSealer(algorithm);
        var seal = sealer.Seal;
        var run = OverflowRun(PageNumber, 20_000, new Random(2));
        var buffer = run.ToArray();

        seal.Seal(buffer);
        seal.Open(buffer, buffer, PageNumber, DataFile, Offset);

        Assert.Equal(3 * Constants.PageSize, run.Length);
        Assert.Equal(run, buffer);
    }

    [Fact]
    public void A_sealed_page_keeps_its_header_fields_in_plaintext_and_hides_its_body()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var page = LeafPage(PageNumber, new Random(3));
        "marker: the customer's name"u8.CopyTo(page.AsSpan(1000));
        PageHeader.StampChecksum(page);
        var sealedPage = page.ToArray();

        seal.Seal(sealedPage);

        Assert.Equal(page.AsSpan(0, 8).ToArray(), sealedPage.AsSpan(0, 8).ToArray());
        Assert.Equal(page.AsSpan(12, 12).ToArray(), sealedPage.AsSpan(12, 12).ToArray());
        Assert.Equal(PageHeader.ComputeChecksum(sealedPage), PageHeader.GetChecksum(sealedPage));
        Assert.NotEqual(PageHeader.GetChecksum(page), PageHeader.GetChecksum(sealedPage));
        Assert.True(sealedPage.AsSpan(SealFormat.PageNonceOffset, SealFormat.NonceSize + SealFormat.TagSize).ContainsAnyExcept((byte)0));
        Assert.False(sealedPage.AsSpan(SealFormat.PageReservedOffset, SealFormat.PageReservedSize).ContainsAnyExcept((byte)0));
        Assert.Equal(-1, sealedPage.AsSpan().IndexOf("marker"u8));
    }

    [Fact]
    public void Sealing_the_same_page_twice_gives_two_nonces_and_two_ciphertexts()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var page = LeafPage(PageNumber, new Random(4));
        var first = page.ToArray();
        var second = page.ToArray();

        seal.Seal(first);
        seal.Seal(second);

        Assert.NotEqual(first.AsSpan(SealFormat.PageNonceOffset, SealFormat.NonceSize).ToArray(), second.AsSpan(SealFormat.PageNonceOffset, SealFormat.NonceSize).ToArray());
        Assert.NotEqual(first.AsSpan(PageHeader.Size).ToArray(), second.AsSpan(PageHeader.Size).ToArray());
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void Every_single_bit_flip_in_a_sealed_run_is_CorruptionException_naming_file_offset_and_page(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        var seed = TestSeed.Next(output, nameof(Every_single_bit_flip_in_a_sealed_run_is_CorruptionException_naming_file_offset_and_page));
        var random = new Random(seed);
        using var sealer = new PageSealer(algorithm);
        var seal = sealer.Seal;
        var sealedRun = OverflowRun(PageNumber, 20_000, random);
        seal.Seal(sealedRun);
        var destination = new byte[sealedRun.Length];

        // Every bit of the header, and a seeded sample of the body's bits.
        var bits = Enumerable.Range(0, PageHeader.Size * 8).Concat(Enumerable.Range(0, 2000).Select(_ => random.Next(PageHeader.Size * 8, sealedRun.Length * 8)));
        foreach (var bit in bits)
        {
            // As the disk would damage it (the stored checksum no longer matches: P4) ...
            var damaged = Flip(sealedRun, bit);
            var error = Assert.Throws<CorruptionException>(() => seal.Open(damaged, destination, PageNumber, DataFile, Offset));
            AssertNames(error, bit, seed);

            // ... and as someone without the key would, recomputing the checksum, which needs no key (the tag: SL3).
            if (bit / 8 is >= PageHeader.ChecksumOffset and < PageHeader.ChecksumOffset + 4)
            {
                continue;
            }

            PageHeader.StampChecksum(damaged);
            error = Assert.Throws<CorruptionException>(() => seal.Open(damaged, destination, PageNumber, DataFile, Offset));
            AssertNames(error, bit, seed);
            Assert.DoesNotContain("P4", error.Reason, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void A_flip_that_keeps_the_checksum_fails_the_seal_and_says_so()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var sealedPage = LeafPage(PageNumber, new Random(5));
        seal.Seal(sealedPage);
        var tampered = Flip(sealedPage, 5000 * 8);
        PageHeader.StampChecksum(tampered);

        var error = Assert.Throws<CorruptionException>(() => seal.Open(tampered, new byte[Constants.PageSize], PageNumber, DataFile, Offset));

        Assert.Contains("SL3", error.Reason, StringComparison.Ordinal);
        Assert.Contains("does not verify", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_page_sealed_for_page_N_fails_as_page_M_even_with_its_header_rewritten()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var sealedPage = LeafPage(PageNumber, new Random(6));
        seal.Seal(sealedPage);
        const long other = PageNumber + 1;

        var misplaced = Assert.Throws<CorruptionException>(() => seal.Open(sealedPage, new byte[Constants.PageSize], other, DataFile, other * Constants.PageSize));
        Assert.Contains("P1", misplaced.Reason, StringComparison.Ordinal);

        var forged = sealedPage.ToArray();
        PageHeader.SetPageNumber(forged, other);
        PageHeader.StampChecksum(forged);
        var error = Assert.Throws<CorruptionException>(() => seal.Open(forged, new byte[Constants.PageSize], other, DataFile, other * Constants.PageSize));
        Assert.Contains("SL3", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Copies_that_keep_the_salt_share_the_pages_subkey_whatever_their_store_id()
    {
        // SL2: a backup or a restore gets a store id of its own and keeps its source's salt; the
        // pages it copied as they are must open under its own key derivation.
        using var sealer = new PageSealer(SealFormat.Preferred);
        using var copy = StoreKey(SealFormat.Preferred, storeId: StoreId + 1);
        using var copyAead = copy.CreatePagesAead();
        var sealedPage = LeafPage(PageNumber, new Random(7));
        var plain = sealedPage.ToArray();
        sealer.Seal.Seal(sealedPage);
        var opened = new byte[Constants.PageSize];

        new PageSeal(copyAead, new NonceSource()).Open(sealedPage, opened, PageNumber, DataFile, Offset);

        Assert.Equal(plain, opened);
    }

    [Fact]
    public void A_page_fails_to_open_under_a_wrong_key_or_another_stores_salt()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        using var wrongKey = StoreKey(SealFormat.Preferred, keyFill: 9);
        using var otherStore = StoreKey(SealFormat.Preferred, saltFill: 5); // another store: another salt
        var seal = sealer.Seal;
        var sealedPage = LeafPage(PageNumber, new Random(8));
        seal.Seal(sealedPage);

        foreach (var other in new[] { wrongKey, otherStore })
        {
            using var otherAead = other.CreatePagesAead();
            var wrong = new PageSeal(otherAead, new NonceSource());
            Assert.Throws<CorruptionException>(() => wrong.Open(sealedPage, new byte[Constants.PageSize], PageNumber, DataFile, Offset));
        }
    }

    [Fact]
    public void A_run_read_shorter_or_longer_than_its_header_says_is_P3()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var sealedRun = OverflowRun(PageNumber, 20_000, new Random(9));
        seal.Seal(sealedRun);

        var shorter = sealedRun.AsSpan(0, 2 * Constants.PageSize).ToArray();
        var error = Assert.Throws<CorruptionException>(() => seal.Open(shorter, new byte[shorter.Length], PageNumber, DataFile, Offset));

        Assert.Contains("P3", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Seal_refuses_a_page_with_bytes_where_the_seal_goes()
    {
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var page = LeafPage(PageNumber, new Random(10));
        page[SealFormat.PageReservedOffset + 3] = 1;

        Assert.Throws<ArgumentException>(() => seal.Seal(page));
        Assert.Throws<ArgumentException>(() => seal.Seal(new byte[Constants.PageSize + 1]));
    }

    [Theory]
    [MemberData(nameof(Algorithms), MemberType = typeof(SealingFixtures))]
    public void A_page_file_block_round_trips_with_its_nonce_and_tag_kept_apart(string name)
    {
        var algorithm = Enum.Parse<SealAlgorithm>(name);
        using var sealer = new PageSealer(algorithm);
        var seal = sealer.Seal;
        var block = RandomBytes(Constants.PageSize);
        var sealedBlock = block.ToArray();
        var nonceAndTag = new byte[SealFormat.BlockSealSize];

        seal.SealBlock(sealedBlock, PageNumber, nonceAndTag);
        Assert.NotEqual(block, sealedBlock);
        var opened = new byte[Constants.PageSize];
        seal.OpenBlock(sealedBlock, nonceAndTag, opened, PageNumber, DataFile, Offset);

        Assert.Equal(block, opened);
    }

    [Fact]
    public void A_page_file_block_fails_with_a_flipped_bit_its_entrys_nonce_or_tag_or_another_page_number()
    {
        var seed = TestSeed.Next(output, nameof(A_page_file_block_fails_with_a_flipped_bit_its_entrys_nonce_or_tag_or_another_page_number));
        var random = new Random(seed);
        using var sealer = new PageSealer(SealFormat.Preferred);
        var seal = sealer.Seal;
        var sealedBlock = RandomBytes(Constants.PageSize);
        var nonceAndTag = new byte[SealFormat.BlockSealSize];
        seal.SealBlock(sealedBlock, PageNumber, nonceAndTag);
        var destination = new byte[Constants.PageSize];

        for (var i = 0; i < 500; i++)
        {
            var bit = random.Next(Constants.PageSize * 8);
            Assert.Throws<CorruptionException>(() => seal.OpenBlock(Flip(sealedBlock, bit), nonceAndTag, destination, PageNumber, DataFile, Offset));
        }

        for (var bit = 0; bit < SealFormat.BlockSealSize * 8; bit++)
        {
            Assert.Throws<CorruptionException>(() => seal.OpenBlock(sealedBlock, Flip(nonceAndTag, bit), destination, PageNumber, DataFile, Offset));
        }

        Assert.Throws<CorruptionException>(() => seal.OpenBlock(sealedBlock, nonceAndTag, destination, PageNumber + 1, DataFile, Offset));
    }

    private static byte[] Flip(byte[] bytes, int bit)
    {
        var copy = bytes.ToArray();
        copy[bit / 8] ^= (byte)(1 << (bit % 8));
        return copy;
    }

    private static void AssertNames(CorruptionException error, int bit, int seed)
    {
        Assert.True(error.File == DataFile && error.Offset == Offset, $"bit {bit} (seed {seed}): {error.Message}");
        Assert.True(error.Reason.Contains($"page {PageNumber}", StringComparison.Ordinal), $"bit {bit} (seed {seed}): {error.Reason}");
    }
}
