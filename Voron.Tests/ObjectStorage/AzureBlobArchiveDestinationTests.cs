using Azure.Storage.Blobs;
using Voron.ObjectStorage;
using Voron.Tests.Core.Archive;
using Voron.Tests.Core.Properties;

namespace Voron.Tests.ObjectStorage;

/// <summary>
/// The Azure Blob destination against Azurite (which enforces If-None-Match and If-Match): the
/// contracts (AD1..AD6, LW1..LW5), the server's own refusal of a second put, shipping and restoring
/// through an outage, and the writer's lease (LS1..LS8) between two copies of one store.
/// </summary>
public sealed class AzureBlobArchiveDestinationTests(ITestOutputHelper output)
{
    [ObjectServerFact("azurite")]
    public async Task An_Azure_Blob_destination_on_Azurite_keeps_the_destination_contract()
    {
        var seed = TestSeed.Next(output, nameof(An_Azure_Blob_destination_on_Azurite_keeps_the_destination_contract));
        using var server = ObjectServer.StartAzurite();
        await ArchiveDestinationContract.CheckAllAsync(await OpenAsync(server, "contract"), seed);
    }

    [ObjectServerFact("azurite")]
    public async Task Two_writers_racing_on_one_blob_store_it_once()
    {
        using var server = ObjectServer.StartAzurite();
        var destination = await OpenAsync(server, "race");
        var payloads = Enumerable.Range(0, 8).Select(i => Enumerable.Repeat((byte)i, 50_000).ToArray()).ToList();
        var stored = await Task.WhenAll(payloads.Select(p => destination.PutIfAbsentAsync("k", new MemoryStream(p), p.Length)));
        Assert.Equal(1, stored.Count(s => s)); // AD2, enforced by the server: no check-then-put window
        var kept = await ArchiveDestinationContract.ReadAllAsync(destination, "k");
        Assert.Equal(payloads[Array.IndexOf(stored, true)], kept);
    }

    [ObjectServerFact("azurite")]
    public async Task Shipping_to_Azure_catches_up_after_the_server_was_down_and_restores_to_each_target()
    {
        var seed = TestSeed.Next(output, nameof(Shipping_to_Azure_catches_up_after_the_server_was_down_and_restores_to_each_target));
        using var server = ObjectServer.StartAzurite();
        await S3ArchiveDestinationTests.ShipAcrossAnOutageAndRestore(server, await OpenAsync(server, "ship"), seed,
            async () => await new BlobContainerClient(server.AzuriteConnectionString, ObjectServer.Bucket).CreateIfNotExistsAsync());
    }

    [ObjectServerFact("azurite")]
    public async Task An_Azure_Blob_destination_on_Azurite_keeps_the_lease_store_contract()
    {
        var seed = TestSeed.Next(output, nameof(An_Azure_Blob_destination_on_Azurite_keeps_the_lease_store_contract));
        using var server = ObjectServer.StartAzurite();
        await ArchiveLeaseStoreContract.CheckAllAsync(await OpenAsync(server, "lease-contract"), seed);
    }

    [ObjectServerFact("azurite")]
    public async Task Of_two_copies_of_a_store_racing_for_an_Azure_lineage_exactly_one_ships_and_the_other_names_the_holder()
    {
        using var server = ObjectServer.StartAzurite();
        await ArchiveLeaseTests.TwoCopiesRaceAndOneShips(await OpenAsync(server, "lease-race"));
    }

    [ObjectServerFact("azurite")]
    public async Task An_Azure_lease_is_taken_over_after_it_expires_and_its_old_holder_finds_it_lost_before_uploading()
    {
        using var server = ObjectServer.StartAzurite();
        await ArchiveLeaseTests.TakeoverAfterExpiryAndTheOldHolderStops(await OpenAsync(server, "lease-takeover"));
    }

    [ObjectServerFact("azurite")]
    public async Task Closing_a_store_hands_its_Azure_lease_back_so_the_other_copy_ships_at_once()
    {
        using var server = ObjectServer.StartAzurite();
        await ArchiveLeaseTests.ClosingReleasesTheLease(await OpenAsync(server, "lease-release"));
    }

    [ObjectServerFact("azurite")]
    public async Task At_most_one_shipper_holds_an_unexpired_Azure_lease_whatever_the_order_of_takes_renewals_releases_and_races()
    {
        var seed = TestSeed.Next(output, nameof(At_most_one_shipper_holds_an_unexpired_Azure_lease_whatever_the_order_of_takes_renewals_releases_and_races));
        using var server = ObjectServer.StartAzurite();
        await ArchiveLeaseModelTests.RunAsync(await OpenAsync(server, "lease-model"), seed, steps: 120);
    }

    private static async Task<AzureBlobArchiveDestination> OpenAsync(ObjectServer server, string prefix)
    {
        var container = new BlobContainerClient(server.AzuriteConnectionString, ObjectServer.Bucket);
        await container.CreateIfNotExistsAsync();
        return new AzureBlobArchiveDestination(container, prefix);
    }
}
