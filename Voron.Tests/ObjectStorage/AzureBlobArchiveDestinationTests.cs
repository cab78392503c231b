using Azure.Storage.Blobs;
using Voron.ObjectStorage;
using Voron.Tests.Core.Archive;

namespace Voron.Tests.ObjectStorage;

/// <summary>
/// The Azure Blob destination against Azurite (which enforces If-None-Match): the contract
/// (AD1..AD6), the server's own refusal of a second put, and shipping and restoring through an outage.
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

    private static async Task<AzureBlobArchiveDestination> OpenAsync(ObjectServer server, string prefix)
    {
        var container = new BlobContainerClient(server.AzuriteConnectionString, ObjectServer.Bucket);
        await container.CreateIfNotExistsAsync();
        return new AzureBlobArchiveDestination(container, prefix);
    }
}
