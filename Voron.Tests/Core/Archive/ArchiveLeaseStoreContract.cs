namespace Voron.Tests.Core.Archive;

/// <summary>
/// The IArchiveLeaseStore contract (LW1..LW5), checked the same way against every implementation:
/// the directory here, Azure Blob (Azurite) and S3 (s3rver) in ObjectStorage/. A server that ignores
/// the conditions (s3rver) is checked with <c>enforced</c> false: reads, versions and unconditional
/// success hold there, and the refusals are asserted not to happen, which is what LS6 detects.
/// </summary>
internal static class ArchiveLeaseStoreContract
{
    public static async Task CheckAllAsync(IArchiveLeaseStore store, int seed, bool enforced = true)
    {
        var random = new Random(seed);
        var root = $"lease-contract{random.Next():x8}";
        await PutIfAbsentStoresOnlyWhenThereIsNone(store, root + "/absent", random, enforced);
        await PutIfVersionReplacesOnlyTheVersionRead(store, root + "/match", random, enforced);
        if (enforced)
        {
            await WritersRacingWithOneVersionHaveOneWinner(store, root + "/race", random);
        }
    }

    private static async Task PutIfAbsentStoresOnlyWhenThereIsNone(IArchiveLeaseStore store, string key, Random random, bool enforced)
    {
        Assert.Null(await store.GetVersionedAsync(key)); // LW3
        var first = ArchiveDestinationContract.Bytes(random, 300);
        var version = await store.PutIfVersionAsync(key, first, null);
        Assert.NotNull(version); // LW1
        var read = await store.GetVersionedAsync(key);
        Assert.Equal(first, read!.Content);
        Assert.Equal(version, read.Version);

        var second = ArchiveDestinationContract.Bytes(random, 200);
        var refused = await store.PutIfVersionAsync(key, second, null);
        if (enforced)
        {
            Assert.Null(refused); // LW1: there is one already
            Assert.Equal(first, (await store.GetVersionedAsync(key))!.Content);
        }
        else
        {
            Assert.NotNull(refused); // ignored: the shipper's check (LS6) sees exactly this
        }
    }

    private static async Task PutIfVersionReplacesOnlyTheVersionRead(IArchiveLeaseStore store, string key, Random random, bool enforced)
    {
        var first = ArchiveDestinationContract.Bytes(random, 100);
        var v1 = (await store.PutIfVersionAsync(key, first, null))!;
        var second = ArchiveDestinationContract.Bytes(random, 120);
        var v2 = await store.PutIfVersionAsync(key, second, v1);
        Assert.NotNull(v2); // LW1: the version read is current
        Assert.NotEqual(v1, v2); // LW2: other bytes, another version
        Assert.Equal(second, (await store.GetVersionedAsync(key))!.Content);

        var third = ArchiveDestinationContract.Bytes(random, 80);
        var stale = await store.PutIfVersionAsync(key, third, v1);
        if (enforced)
        {
            Assert.Null(stale); // LW1: v1 was replaced since
            var current = await store.GetVersionedAsync(key);
            Assert.Equal(second, current!.Content);
            Assert.Equal(v2, current.Version);
            Assert.Null(await store.PutIfVersionAsync(key + "-missing", third, v2)); // If-Match on nothing
            Assert.Null(await store.GetVersionedAsync(key + "-missing"));
        }
        else
        {
            Assert.NotNull(stale);
        }
    }

    private static async Task WritersRacingWithOneVersionHaveOneWinner(IArchiveLeaseStore store, string key, Random random)
    {
        var v1 = (await store.PutIfVersionAsync(key, ArchiveDestinationContract.Bytes(random, 50), null))!;
        var payloads = Enumerable.Range(0, 6).Select(_ => ArchiveDestinationContract.Bytes(random, 60)).ToList();
        var results = await Task.WhenAll(payloads.Select(p => Task.Run(() => store.PutIfVersionAsync(key, p, v1))));
        Assert.Equal(1, results.Count(r => r != null)); // LW1, LW2: a compare-and-swap, not a check-then-write
        var winner = Array.FindIndex(results, r => r != null);
        var current = await store.GetVersionedAsync(key);
        Assert.Equal(payloads[winner], current!.Content);
        Assert.Equal(results[winner], current.Version);

        var absent = key + "-new";
        var created = await Task.WhenAll(payloads.Select(p => Task.Run(() => store.PutIfVersionAsync(absent, p, null))));
        Assert.Equal(1, created.Count(r => r != null));
    }
}
