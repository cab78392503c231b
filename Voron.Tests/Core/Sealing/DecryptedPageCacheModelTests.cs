using Voron.Sealing;
using Voron.Testing;

namespace Voron.Tests.Core.Sealing;

/// <summary>
/// OP1–OP3 against a model, seeded and replayable: a hit is only ever the bytes last added for that
/// page under the nonce asked for, never after a Forget, and the cache never holds more than its
/// capacity.
/// </summary>
public sealed class DecryptedPageCacheModelTests(ITestOutputHelper output)
{
    [Fact]
    public void Hits_are_exactly_the_last_version_added_under_that_nonce_and_the_capacity_holds()
    {
        var seed = TestSeed.Next(output, nameof(Hits_are_exactly_the_last_version_added_under_that_nonce_and_the_capacity_holds));
        var random = new Random(seed);
        const int pageSize = Constants.PageSize;
        var cache = new DecryptedPageCache(10 * pageSize);
        var current = new Dictionary<long, (byte[] Nonce, byte[] Bytes)>(); // the last Add of each page, until a Forget
        var hits = 0;
        for (var step = 0; step < 20_000; step++)
        {
            var page = random.Next(1, 40);
            switch (random.Next(10))
            {
                case < 4:
                {
                    var nonce = new byte[SealFormat.NonceSize];
                    random.NextBytes(nonce);
                    var bytes = new byte[pageSize * (random.Next(8) == 0 ? 2 : 1)];
                    random.NextBytes(bytes.AsSpan(0, 16));
                    cache.Add(page, nonce, bytes);
                    current[page] = (nonce, bytes);
                    break;
                }

                case < 9:
                {
                    var known = current.TryGetValue(page, out var last);
                    var ask = known && random.Next(4) != 0 ? last.Nonce : RandomNonce(random);
                    if (cache.TryGet(page, ask, out var got))
                    {
                        Assert.True(known, $"seed {seed}, step {step}: page {page} hit without an entry");
                        Assert.True(ask.AsSpan().SequenceEqual(last.Nonce), $"seed {seed}, step {step}: page {page} hit under another nonce");
                        Assert.Same(last.Bytes, got);
                        hits++;
                    }

                    break;
                }

                default:
                    var count = random.Next(1, 4);
                    cache.Forget(page, count);
                    for (var p = page; p < page + count; p++)
                    {
                        current.Remove(p);
                    }

                    break;
            }

            Assert.True(cache.Bytes <= 10 * pageSize, $"seed {seed}, step {step}: {cache.Bytes} bytes held");
            Assert.True(cache.Count <= 10, $"seed {seed}, step {step}: {cache.Count} entries held");
        }

        Assert.True(hits > 1000, $"seed {seed}: only {hits} hits; the model must exercise the cache");
        Assert.True(cache.Evictions > 0);
    }

    private static byte[] RandomNonce(Random random)
    {
        var nonce = new byte[SealFormat.NonceSize];
        random.NextBytes(nonce);
        return nonce;
    }
}
