using Voron.Archive;
using Voron.Tests.Documents.Expiration;

namespace Voron.Tests.Core.Properties;

/// <summary>
/// Several shippers' leases on one lineage, taking, renewing, releasing and racing in a random
/// order while a shared clock moves by random amounts, against the stored lease as the model.
/// Safety: at no moment do two of them hold an unexpired lease (LS1). Liveness: a shipper whose
/// way is clear (no lease, its own, or an expired one it never lost) gets it, and one whose way is
/// not is refused with an error naming the holder (LS2, LS4). Run over the directory destination
/// here and over Azurite in ObjectStorage/. 300 steps; the seed is printed and VORON_SEED replays it.
/// </summary>
public sealed class ArchiveLeaseModelTests(ITestOutputHelper output)
{
    [Fact]
    public async Task At_most_one_shipper_holds_an_unexpired_lease_whatever_the_order_of_takes_renewals_releases_and_races()
    {
        var seed = TestSeed.Next(output, nameof(At_most_one_shipper_holds_an_unexpired_lease_whatever_the_order_of_takes_renewals_releases_and_races));
        using var remote = new TempDirectory();
        await RunAsync(new DirectoryArchiveDestination(remote.Path), seed, steps: 300);
    }

    internal static async Task RunAsync(IArchiveDestination destination, int seed, int steps)
    {
        var random = new Random(seed);
        var lineage = (ulong)random.NextInt64();
        var duration = TimeSpan.FromSeconds(60);
        var clock = new ManualClock(new DateTimeOffset(2026, 12, 7, 0, 0, 0, TimeSpan.Zero));
        var leases = Enumerable.Range(0, 3).Select(_ => new ArchiveLease(destination, lineage, duration, clock)).ToArray();
        var store = (IArchiveLeaseStore)destination;
        var key = ArchiveKeys.Lease(lineage);
        var where = ArchiveUpload.Where(destination, key);

        for (var step = 0; step < steps; step++)
        {
            var context = $"seed {seed}, step {step}";
            var i = random.Next(leases.Length);
            var lease = leases[i];
            switch (random.Next(10))
            {
                case < 5:
                {
                    var stored = await store.GetVersionedAsync(key) is { } found ? ArchiveLeaseRecord.Decode(found.Content, where) : null;
                    var now = clock.GetUtcNow();
                    var lostBefore = lease.HeldUntil != null && stored != null && stored.Holder != lease.Holder;
                    var clear = !lostBefore && (stored == null || stored.Holder == lease.Holder || stored.Expires <= now);
                    var renew = random.Next(2) == 0;
                    try
                    {
                        await lease.EnsureAsync(renew, default);
                        Assert.True(clear, $"{context}: shipper {i} took a lease held by {stored?.Describe()} at {now:O}");
                        Assert.Equal(ArchiveLeaseState.Held, lease.State);
                        Assert.True(lease.HeldUntil > now, $"{context}: held, yet expired");
                    }
                    catch (InvalidOperationException e)
                    {
                        Assert.False(clear, $"{context}: shipper {i} was refused a clear lease ({stored?.Describe() ?? "none"} at {now:O}): {e.Message}");
                        Assert.Contains(stored!.Holder, e.Message, StringComparison.Ordinal);
                        Assert.Equal(ArchiveLeaseState.HeldByAnother, lease.State);
                        Assert.Null(lease.HeldUntil);
                    }

                    break;
                }

                case < 6:
                    await lease.ReleaseAsync(default);
                    Assert.Null(lease.HeldUntil);
                    break;

                case < 8:
                {
                    // Two shippers at the very same moment: the server orders them.
                    var j = (i + 1 + random.Next(leases.Length - 1)) % leases.Length;
                    await Task.WhenAll(Quietly(lease.EnsureAsync(random.Next(2) == 0, default)), Quietly(leases[j].EnsureAsync(random.Next(2) == 0, default)));
                    break;
                }

                default:
                    clock.Advance(TimeSpan.FromSeconds(random.Next(0, 90)));
                    break;
            }

            var holders = leases.Where(l => l.HeldUntil > clock.GetUtcNow()).ToList();
            Assert.True(holders.Count <= 1, $"{context}: {holders.Count} shippers hold an unexpired lease at {clock.GetUtcNow():O}");
            if (holders.Count == 1)
            {
                var stored = ArchiveLeaseRecord.Decode((await store.GetVersionedAsync(key))!.Content, where);
                Assert.Equal(holders[0].Holder, stored.Holder); // the one that thinks it holds it is the one stored
            }
        }
    }

    private static async Task Quietly(Task task)
    {
        try
        {
            await task;
        }
        catch (Exception e) when (e is InvalidOperationException or IOException)
        {
            // a refusal is a legal outcome of a race; the invariants after the step judge it
        }
    }
}
