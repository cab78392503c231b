using Voron.Paging;

namespace Voron.Tests.Core.Checksums;

/// <summary>
/// A modified page's checksum is updated from its previous version's and the blocks that changed
/// (PageHeader.UpdatedChecksum, T5 in LowLevelTransaction.cs): it must equal the checksum computed
/// over the whole page, for any change. Rerun a failure with VORON_SEED=&lt;seed&gt;.
/// </summary>
public sealed class PageChecksumUpdateTests(ITestOutputHelper output)
{
    [Fact]
    public void UpdatedChecksum_equals_the_whole_page_checksum_after_random_changes()
    {
        var seed = TestSeed.Next(output, nameof(UpdatedChecksum_equals_the_whole_page_checksum_after_random_changes));
        var random = new Random(seed);
        for (var round = 0; round < 2_000; round++)
        {
            var previous = new byte[Constants.PageSize];
            if (random.Next(4) != 0)
            {
                random.NextBytes(previous); // else a page of zeros (and a zero stamp)
            }

            PageHeader.StampChecksum(previous);
            var current = (byte[])previous.Clone();
            var changes = random.Next(5) == 0 ? 0 : random.Next(1, 12);
            for (var c = 0; c < changes; c++)
            {
                // Header fields, the first and last blocks, block edges and long stretches alike.
                var length = random.Next(3) == 0 ? random.Next(1, 8) : random.Next(1, random.Next(2) == 0 ? 200 : 5_000);
                var at = random.Next(4) switch
                {
                    0 => random.Next(0, 64),
                    1 => Constants.PageSize - length,
                    2 => (random.Next(0, Constants.PageSize / 64) * 64) - random.Next(0, 2),
                    _ => random.Next(0, Constants.PageSize),
                };
                at = Math.Clamp(at, 0, Constants.PageSize - 1);
                var span = current.AsSpan(at, Math.Min(length, Constants.PageSize - at));
                if (random.Next(3) == 0)
                {
                    span.Clear();
                }
                else
                {
                    random.NextBytes(span);
                }
            }

            Assert.True(PageHeader.ComputeChecksum(current) == PageHeader.UpdatedChecksum(previous, current),
                $"seed {seed} round {round}: {changes} changes");
        }
    }

    [Fact]
    public void UpdatedChecksum_keeps_a_wrong_previous_stamp_wrong()
    {
        var previous = new byte[Constants.PageSize];
        new Random(5).NextBytes(previous);
        PageHeader.StampChecksum(previous);
        previous[5_000] ^= 1; // damage the stamp does not cover
        var current = (byte[])previous.Clone();
        current[100] ^= 0xFF;

        var updated = PageHeader.UpdatedChecksum(previous, current);

        Assert.NotEqual(PageHeader.ComputeChecksum(current), updated);
        Assert.Equal(PageHeader.GetChecksum(previous) ^ PageHeader.ComputeChecksum(previous), updated ^ PageHeader.ComputeChecksum(current));
    }
}
