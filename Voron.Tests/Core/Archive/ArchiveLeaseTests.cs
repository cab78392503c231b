using System.Text.RegularExpressions;
using Voron.Archive;

namespace Voron.Tests.Core.Archive;

/// <summary>
/// The writer's lease (LS1..LS8) on the directory destination; the scenarios are shared with the
/// Azure Blob tests, which run them against Azurite (ObjectStorage/). Expiry is reached by moving
/// the stores' clock, never by waiting.
/// </summary>
public sealed partial class ArchiveLeaseTests(ITestOutputHelper output)
{
    [Fact]
    public async Task A_directory_destination_keeps_the_lease_store_contract()
    {
        var seed = TestSeed.Next(output, nameof(A_directory_destination_keeps_the_lease_store_contract));
        using var temp = new TempDirectory();
        await ArchiveLeaseStoreContract.CheckAllAsync(new DirectoryArchiveDestination(temp.Combine("remote")), seed);
    }

    [Fact]
    public async Task Of_two_copies_of_a_store_racing_for_a_directory_lineage_exactly_one_ships_and_the_other_names_the_holder()
    {
        using var remote = new TempDirectory();
        await TwoCopiesRaceAndOneShips(new DirectoryArchiveDestination(remote.Path));
    }

    [Fact]
    public async Task A_directory_lease_is_taken_over_after_it_expires_and_its_old_holder_finds_it_lost_before_uploading()
    {
        using var remote = new TempDirectory();
        await TakeoverAfterExpiryAndTheOldHolderStops(new DirectoryArchiveDestination(remote.Path));
    }

    [Fact]
    public async Task Closing_a_store_hands_its_directory_lease_back_so_the_other_copy_ships_at_once()
    {
        using var remote = new TempDirectory();
        await ClosingReleasesTheLease(new DirectoryArchiveDestination(remote.Path));
    }

    [Fact]
    public async Task A_lease_lost_in_the_middle_of_a_pass_stops_the_pass_before_its_next_upload()
    {
        // The lease is checked before every upload, not only when a pass starts (LS3, LS4): a pass
        // that outlives its lease (a slow upload, a paused machine) must not go on uploading once
        // another store took the lineage over.
        using var remote = new TempDirectory();
        var destination = new HookedDestination(new DirectoryArchiveDestination(remote.Path));
        using var twins = new TwinStores(destination);
        var pending = twins.LocalFiles("a");
        Assert.True(pending.Count >= 3, $"the twins archived {pending.Count} journal files");
        destination.AfterJournalPut = async () =>
        {
            destination.AfterJournalPut = null;
            twins.Clock.Advance(TimeSpan.FromMinutes(2)); // this upload took longer than the lease
            await new ArchiveLease(destination, twins.Lineage, TimeSpan.FromMinutes(1), twins.Clock).EnsureAsync(renew: true, default); // another store takes it
        };

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => twins.A.ShipArchiveAsync());
        Assert.Contains("LS4", error.Message, StringComparison.Ordinal);
        Assert.Equal(ArchiveLeaseState.HeldByAnother, twins.A.ArchiveShipping!.Lease);
        var shipped = await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.JournalPrefix(twins.Lineage));
        Assert.Equal([ArchiveKeys.Journal(twins.Lineage, pending[0])], shipped); // the one under way, and no other
    }

    [Fact]
    public async Task A_store_restarted_after_a_crash_takes_its_own_unexpired_lease_back_at_once_and_its_copy_still_may_not()
    {
        // LS8: a killed store leaves its lease unexpired; the same store opened again on the same
        // machine is the only process that can hold it (its lock file), so it must not wait out the
        // duration. A copy of the store elsewhere is another holder and still waits.
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        using var twins = new TwinStores(destination);
        var earlierLife = new ArchiveLease(destination, twins.Lineage, TimeSpan.FromMinutes(1), twins.Clock,
            ArchiveLease.HolderFor(twins.Archive("a"), twins.Lineage));
        await earlierLife.EnsureAsync(renew: true, default); // held, then the process died without releasing it

        var status = await twins.A.ShipArchiveAsync();
        Assert.Equal(ArchiveLeaseState.Held, status.Lease);
        Assert.Equal(0, status.PendingFiles);
        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => twins.B.ShipArchiveAsync());
        Assert.Contains("LS2", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_store_with_nothing_to_upload_still_renews_its_lease_every_pass()
    {
        using var remote = new TempDirectory();
        using var twins = new TwinStores(new DirectoryArchiveDestination(remote.Path));
        Assert.Equal(ArchiveLeaseState.Held, (await twins.A.ShipArchiveAsync()).Lease);
        for (var pass = 0; pass < 5; pass++)
        {
            twins.Clock.Advance(TimeSpan.FromSeconds(40)); // each pass is within the lease; all of them are not
            var status = await twins.A.ShipArchiveAsync();
            Assert.Equal(ArchiveLeaseState.Held, status.Lease);
            Assert.Equal(0, status.PendingFiles);
        }

        await Assert.ThrowsAsync<InvalidOperationException>(() => twins.B.ShipArchiveAsync()); // LS3: renewed, so not expired
        Assert.Equal(ArchiveLeaseState.HeldByAnother, twins.B.ArchiveShipping!.Lease);
    }

    [Fact]
    public async Task A_destination_without_conditional_writes_ships_without_a_lease_and_says_so()
    {
        var seed = TestSeed.Next(output, nameof(A_destination_without_conditional_writes_ships_without_a_lease_and_says_so));
        using var remote = new TempDirectory();
        var destination = new FaultyDestination(new DirectoryArchiveDestination(remote.Path)); // no IArchiveLeaseStore
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(40);
        store.Env.FlushToDataFile();
        var status = await store.Env.ShipArchiveAsync();
        Assert.Equal(ArchiveLeaseState.NotEnforced, status.Lease);
        Assert.Null(status.LeaseHolder);
        Assert.Equal(0, status.PendingFiles);
        Assert.Null(await destination.GetAsync(ArchiveKeys.Lease(store.Lineage)));
    }

    [Fact]
    public async Task A_destination_that_ignores_the_conditions_is_found_out_and_ships_without_a_lease()
    {
        // LS6: a server that accepts If-None-Match and If-Match and ignores them (s3rver) would let
        // two stores both "hold" the lease; the check finds it out first.
        var seed = TestSeed.Next(output, nameof(A_destination_that_ignores_the_conditions_is_found_out_and_ships_without_a_lease));
        using var remote = new TempDirectory();
        var destination = new IgnoresConditions(new DirectoryArchiveDestination(remote.Path));
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(40);
        store.Env.FlushToDataFile();
        var status = await store.Env.ShipArchiveAsync();
        Assert.Equal(ArchiveLeaseState.NotEnforced, status.Lease);
        Assert.Equal(0, status.PendingFiles);
        Assert.Empty(await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.Lineage(store.Lineage) + "/lease"));
    }

    [Fact]
    public async Task A_damaged_lease_object_stops_shipping_with_an_error_naming_it()
    {
        using var remote = new TempDirectory();
        var destination = new DirectoryArchiveDestination(remote.Path);
        using var twins = new TwinStores(destination);
        var key = ArchiveKeys.Lease(twins.Lineage);
        Assert.NotNull(await destination.PutIfVersionAsync(key, "voron-lease 1\nholder nothex\n"u8.ToArray(), null));

        var error = await Assert.ThrowsAsync<CorruptionException>(() => twins.A.ShipArchiveAsync());
        Assert.Contains(key, error.Message, StringComparison.Ordinal);
        Assert.Contains("LS7", error.Message, StringComparison.Ordinal);
        Assert.Empty(await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.JournalPrefix(twins.Lineage)));
        Assert.Contains("LS7", twins.A.ArchiveShipping!.LastError, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("voron-lease 1\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess 1\nexpires 5\n", null)]
    [InlineData("voron-lease 1\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess 1\nexpires 5", "line 6")]
    [InlineData("voron-lease 1\nholder 0123456789ABCDEF0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess 1\nexpires 5\n", "the holder")]
    [InlineData("voron-lease 1\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine \nprocess 1\nexpires 5\n", "machine name")]
    [InlineData("voron-lease 1\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess -1\nexpires 5\n", "process id")]
    [InlineData("voron-lease 1\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess 1\nexpires 99999999999999999999\n", "expiry")]
    [InlineData("voron-lease 1\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess 1\nexpires 5\nextra\n", "follow")]
    public void A_lease_record_is_read_only_when_every_field_is_valid(string text, string? reason)
    {
        var bytes = Encoding.UTF8.GetBytes(text);
        if (reason == null)
        {
            var record = ArchiveLeaseRecord.Decode(bytes, "remote/lease");
            Assert.Equal(5, record.ExpiresUnixMilliseconds);
            Assert.Equal(bytes, record.Encode()); // the format round-trips
            return;
        }

        var error = Assert.Throws<CorruptionException>(() => ArchiveLeaseRecord.Decode(bytes, "remote/lease"));
        Assert.Contains(reason, error.Message, StringComparison.Ordinal);
        Assert.Contains("remote/lease", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_lease_of_a_newer_format_is_refused_as_a_newer_builds()
    {
        var bytes = "voron-lease 2\nholder 0123456789abcdef0123456789abcdef\nwrite 0123456789abcdef\nmachine m\nprocess 1\nexpires 5\n"u8.ToArray();
        var error = Assert.Throws<FormatVersionException>(() => ArchiveLeaseRecord.Decode(bytes, "remote/lease"));
        Assert.Contains("remote/lease", error.Message, StringComparison.Ordinal);
    }

    /// <summary>Both copies ship at once: one takes the lease and ships everything, the other ships nothing and names the holder (LS2).</summary>
    internal static async Task TwoCopiesRaceAndOneShips(IArchiveDestination destination)
    {
        using var twins = new TwinStores(destination);
        twins.Commit(twins.A, 6); // the copies diverge: their newer files differ
        twins.Commit(twins.B, 6);
        await Task.WhenAll(Quietly(twins.A.ShipArchiveAsync()), Quietly(twins.B.ShipArchiveAsync()));

        var statuses = new[] { ("a", twins.A.ArchiveShipping!), ("b", twins.B.ArchiveShipping!) };
        Assert.Equal(1, statuses.Count(s => s.Item2.Lease == ArchiveLeaseState.Held));
        var (winnerName, winner) = statuses.Single(s => s.Item2.Lease == ArchiveLeaseState.Held);
        var (loserName, loser) = statuses.Single(s => s.Item2.Lease != ArchiveLeaseState.Held);
        Assert.Equal(ArchiveLeaseState.HeldByAnother, loser.Lease);
        Assert.Equal(0, winner.PendingFiles);
        Assert.Null(winner.LastError);
        Assert.Equal(0, loser.LastShippedFile);
        Assert.True(loser.PendingFiles > 0);
        var holder = HolderId(winner.LeaseHolder);
        Assert.Contains(holder, loser.LastError, StringComparison.Ordinal);
        Assert.Contains(holder, loser.LeaseHolder, StringComparison.Ordinal);
        Assert.Contains($"process {Environment.ProcessId}", loser.LastError, StringComparison.Ordinal);
        Assert.Contains(ArchiveLeaseRecord.CleanMachineName(Environment.MachineName), loser.LastError, StringComparison.Ordinal);

        // The destination holds the winner's files and none of the loser's.
        var prefix = ArchiveKeys.JournalPrefix(twins.Lineage);
        var keys = await ArchiveDestinationContract.KeysAsync(destination, prefix);
        Assert.Equal(twins.LocalFiles(winnerName).Select(n => ArchiveKeys.Journal(twins.Lineage, n)), keys);
        foreach (var number in twins.LocalFiles(winnerName))
        {
            var bytes = await ArchiveDestinationContract.ReadAllAsync(destination, ArchiveKeys.Journal(twins.Lineage, number));
            Assert.Equal(File.ReadAllBytes(JournalFiles.PathOf(twins.Archive(winnerName), number)), bytes[ArchiveObjectHeader.Size..]);
        }

        // SH1: the loser's commits go on, and it still does not ship.
        var loserEnv = loserName == "a" ? twins.A : twins.B;
        twins.Commit(loserEnv, 2);
        await Assert.ThrowsAsync<InvalidOperationException>(() => loserEnv.ShipArchiveAsync());
        Assert.Equal(keys, await ArchiveDestinationContract.KeysAsync(destination, prefix));
    }

    /// <summary>A's lease expires (its machine paused), B takes it over, and A's next pass stops before uploading (LS2, LS4).</summary>
    internal static async Task TakeoverAfterExpiryAndTheOldHolderStops(IArchiveDestination destination)
    {
        using var twins = new TwinStores(destination);
        var first = await twins.A.ShipArchiveAsync();
        Assert.Equal(ArchiveLeaseState.Held, first.Lease);
        Assert.Equal(0, first.PendingFiles);
        var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => twins.B.ShipArchiveAsync());
        Assert.Contains(HolderId(first.LeaseHolder), refused.Message, StringComparison.Ordinal);

        twins.Clock.Advance(TimeSpan.FromMinutes(2)); // A renews nothing meanwhile
        var taken = await twins.B.ShipArchiveAsync();
        Assert.Equal(ArchiveLeaseState.Held, taken.Lease);
        Assert.NotEqual(HolderId(first.LeaseHolder), HolderId(taken.LeaseHolder));
        Assert.Null(taken.LastError);

        var shippedBefore = await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.JournalPrefix(twins.Lineage));
        twins.Commit(twins.A, 6);
        Assert.True(twins.LocalFiles("a")[^1] > first.LastShippedFile, "A archived new journal files");
        var lost = await Assert.ThrowsAsync<InvalidOperationException>(() => twins.A.ShipArchiveAsync());
        Assert.Contains("LS4", lost.Message, StringComparison.Ordinal);
        Assert.Contains(HolderId(taken.LeaseHolder), lost.Message, StringComparison.Ordinal);
        Assert.Equal(ArchiveLeaseState.HeldByAnother, twins.A.ArchiveShipping!.Lease);
        Assert.Equal(shippedBefore, await ArchiveDestinationContract.KeysAsync(destination, ArchiveKeys.JournalPrefix(twins.Lineage)));

        // Still B's on A's next pass: a lost lease is not taken back while its new holder renews it.
        Assert.Equal(ArchiveLeaseState.Held, (await twins.B.ShipArchiveAsync()).Lease);
        await Assert.ThrowsAsync<InvalidOperationException>(() => twins.A.ShipArchiveAsync());
    }

    /// <summary>LS5: A's Dispose writes its lease back expired, so B takes it without waiting for the expiry.</summary>
    internal static async Task ClosingReleasesTheLease(IArchiveDestination destination)
    {
        using var twins = new TwinStores(destination);
        Assert.Equal(ArchiveLeaseState.Held, (await twins.A.ShipArchiveAsync()).Lease);
        await Assert.ThrowsAsync<InvalidOperationException>(() => twins.B.ShipArchiveAsync());
        twins.A.Dispose();
        Assert.Equal(ArchiveLeaseState.Held, (await twins.B.ShipArchiveAsync()).Lease); // the clock has not moved
        twins.Open("a");
        await Assert.ThrowsAsync<InvalidOperationException>(() => twins.A.ShipArchiveAsync());
    }

    private static string HolderId(string? description)
    {
        var match = HolderPattern().Match(description ?? "");
        Assert.True(match.Success, $"'{description}' names no holder");
        return match.Groups[1].Value;
    }

    private static async Task Quietly(Task task)
    {
        try
        {
            await task;
        }
        catch (Exception e) when (e is InvalidOperationException or IOException)
        {
            // recorded in the status, which the caller asserts
        }
    }

    [GeneratedRegex("holder ([0-9a-f]{32})")]
    private static partial Regex HolderPattern();

    /// <summary>A destination with the capability that runs a hook after each journal object is stored.</summary>
    private sealed class HookedDestination(DirectoryArchiveDestination inner) : IArchiveDestination, IArchiveLeaseStore
    {
        public Func<Task>? AfterJournalPut { get; set; }

        public string Description => inner.Description;

        public async Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default)
        {
            var stored = await inner.PutIfAbsentAsync(key, content, length, cancellationToken);
            if (key.Contains("/journal/", StringComparison.Ordinal) && AfterJournalPut is { } hook)
            {
                await hook();
            }

            return stored;
        }

        public Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default) =>
            inner.GetAsync(key, offset, length, cancellationToken);

        public IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null, CancellationToken cancellationToken = default) =>
            inner.ListAsync(prefix, startAfter, cancellationToken);

        public Task DeleteAsync(string key, CancellationToken cancellationToken = default) => inner.DeleteAsync(key, cancellationToken);

        public Task<ArchiveVersionedObject?> GetVersionedAsync(string key, CancellationToken cancellationToken = default) =>
            inner.GetVersionedAsync(key, cancellationToken);

        public Task<string?> PutIfVersionAsync(string key, ReadOnlyMemory<byte> content, string? ifVersion, CancellationToken cancellationToken = default) =>
            inner.PutIfVersionAsync(key, content, ifVersion, cancellationToken);
    }

    /// <summary>A server that takes If-None-Match and If-Match and ignores them, as s3rver does.</summary>
    private sealed class IgnoresConditions(DirectoryArchiveDestination inner) : IArchiveDestination, IArchiveLeaseStore
    {
        public string Description => inner.Description;

        public Task<bool> PutIfAbsentAsync(string key, Stream content, long length, CancellationToken cancellationToken = default) =>
            inner.PutIfAbsentAsync(key, content, length, cancellationToken);

        public Task<Stream?> GetAsync(string key, long offset = 0, long? length = null, CancellationToken cancellationToken = default) =>
            inner.GetAsync(key, offset, length, cancellationToken);

        public IAsyncEnumerable<ArchiveObjectInfo> ListAsync(string prefix, string? startAfter = null, CancellationToken cancellationToken = default) =>
            inner.ListAsync(prefix, startAfter, cancellationToken);

        public Task DeleteAsync(string key, CancellationToken cancellationToken = default) => inner.DeleteAsync(key, cancellationToken);

        public Task<ArchiveVersionedObject?> GetVersionedAsync(string key, CancellationToken cancellationToken = default) =>
            inner.GetVersionedAsync(key, cancellationToken);

        public async Task<string?> PutIfVersionAsync(string key, ReadOnlyMemory<byte> content, string? ifVersion, CancellationToken cancellationToken = default) =>
            await inner.PutIfVersionAsync(key, content, (await inner.GetVersionedAsync(key, cancellationToken))?.Version, cancellationToken);
    }
}
