using Amazon.Runtime;
using Amazon.S3;
using Amazon.S3.Model;
using Voron.ObjectStorage;
using Voron.Tests.Core.Archive;
using Voron.Tests.Core.Backup;

namespace Voron.Tests.ObjectStorage;

/// <summary>
/// The S3 destination against s3rver (a real S3-compatible server): the contract (AD1..AD6), and
/// shipping and restoring through a server that is stopped and started again. s3rver ignores
/// If-None-Match and If-Match, so these test the wire format, not the server's refusal (Azurite's
/// tests do), and that the shipper finds the lease unenforceable there (LS6). Multipart uploads run
/// with a small part size.
/// </summary>
public sealed class S3ArchiveDestinationTests(ITestOutputHelper output)
{
    [ObjectServerFact("s3rver")]
    public async Task An_S3_destination_on_s3rver_keeps_the_destination_contract()
    {
        var seed = TestSeed.Next(output, nameof(An_S3_destination_on_s3rver_keeps_the_destination_contract));
        using var server = ObjectServer.StartS3rver();
        using var destination = Open(server, "contract");
        await ArchiveDestinationContract.CheckAllAsync(destination, seed);
    }

    [ObjectServerFact("s3rver")]
    public async Task Shipping_to_S3_catches_up_after_the_server_was_down_and_restores_to_each_target()
    {
        var seed = TestSeed.Next(output, nameof(Shipping_to_S3_catches_up_after_the_server_was_down_and_restores_to_each_target));
        using var server = ObjectServer.StartS3rver();
        using var destination = Open(server, "ship");
        await ShipAcrossAnOutageAndRestore(server, destination, seed, () => Task.CompletedTask);
    }

    [ObjectServerFact("s3rver")]
    public async Task An_S3_destination_on_s3rver_keeps_the_destination_contract_with_multipart_uploads()
    {
        // Part size 64 KiB: the contract's 70,000- and 200,000-byte objects go as two and four
        // parts, and the one whose content breaks halfway is aborted, leaving nothing (AD1).
        var seed = TestSeed.Next(output, nameof(An_S3_destination_on_s3rver_keeps_the_destination_contract_with_multipart_uploads));
        using var server = ObjectServer.StartS3rver();
        using var destination = Open(server, "multipart", partSize: 64 << 10);
        await ArchiveDestinationContract.CheckAllAsync(destination, seed);
    }

    [ObjectServerFact("s3rver")]
    public async Task Shipping_to_S3_in_multipart_uploads_restores_to_each_target()
    {
        var seed = TestSeed.Next(output, nameof(Shipping_to_S3_in_multipart_uploads_restores_to_each_target));
        using var server = ObjectServer.StartS3rver();
        var requests = new List<string>();
        using var client = CountingClient(server, requests);
        var destination = new S3ArchiveDestination(client, ObjectServer.Bucket, "ship-multipart") { PartSize = 20 << 10 }; // 64 KiB journal files: four parts each
        await ShipAcrossAnOutageAndRestore(server, destination, seed, () => Task.CompletedTask);
        lock (requests)
        {
            Assert.Contains(nameof(InitiateMultipartUploadRequest), requests);
            Assert.True(requests.Count(r => r == nameof(UploadPartRequest)) >= 4, string.Join(", ", requests.Distinct()));
            Assert.Contains(nameof(CompleteMultipartUploadRequest), requests);
        }
    }

    /// <summary>A client configured as ForEndpoint does it, that records the name of every request it sends.</summary>
    private static AmazonS3Client CountingClient(ObjectServer server, List<string> requests)
    {
        var client = new AmazonS3Client(new BasicAWSCredentials("S3RVER", "S3RVER"), new AmazonS3Config
        {
            ServiceURL = server.Endpoint.ToString(),
            ForcePathStyle = true,
            AuthenticationRegion = "us-east-1",
            RequestChecksumCalculation = RequestChecksumCalculation.WHEN_REQUIRED,
            ResponseChecksumValidation = ResponseChecksumValidation.WHEN_REQUIRED,
        });
        client.BeforeRequestEvent += (_, e) =>
        {
            if (e is WebServiceRequestEventArgs request)
            {
                lock (requests)
                {
                    requests.Add(request.Request.GetType().Name);
                }
            }
        };
        return client;
    }

    [ObjectServerFact("s3rver")]
    public async Task S3rver_ignores_the_lease_conditions_so_the_contract_sees_them_accepted()
    {
        var seed = TestSeed.Next(output, nameof(S3rver_ignores_the_lease_conditions_so_the_contract_sees_them_accepted));
        using var server = ObjectServer.StartS3rver();
        using var destination = Open(server, "lease-contract");
        await ArchiveLeaseStoreContract.CheckAllAsync(destination, seed, enforced: false);
    }

    [ObjectServerFact("s3rver")]
    public async Task Shipping_to_s3rver_finds_the_lease_unenforceable_and_ships_without_it()
    {
        var seed = TestSeed.Next(output, nameof(Shipping_to_s3rver_finds_the_lease_unenforceable_and_ships_without_it));
        using var server = ObjectServer.StartS3rver();
        using var destination = Open(server, "lease-ship");
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(40);
        store.Env.FlushToDataFile();
        var status = await store.Env.ShipArchiveAsync();
        Assert.Equal(ArchiveLeaseState.NotEnforced, status.Lease); // LS6
        Assert.Equal(0, status.PendingFiles);
        await ArchiveShippingTests.AssertShippedPrefix(store, destination, status.LastShippedFile);
        Assert.Empty(await ArchiveDestinationContract.KeysAsync(destination, store.LineageText + "/lease")); // the probe is gone, no lease written
    }

    /// <summary>Ships, stops the server while committing, starts it, catches up, and restores
    /// from the destination to a few targets, each equal to the model. <paramref name="afterRestart"/>
    /// re-creates what a server may lose when killed (Azurite saves its metadata lazily, so the
    /// container and its blobs can be gone: then the shipper starts the lineage over, SH3, and the
    /// snapshot is uploaded again; on s3rver the second upload is accepted as the same bytes, AO3).</summary>
    internal static async Task ShipAcrossAnOutageAndRestore(ObjectServer server, IArchiveDestination destination, int seed, Func<Task> afterRestart)
    {
        using var store = new ShippingWorkload(seed, destination);
        store.Commit(30);
        var backup = await store.Env.BackupAsync(store.Combine("backup"));
        await ObjectArchive.UploadSnapshotAsync(destination, backup.Directory);
        store.Commit(60);
        store.Env.FlushToDataFile();
        Assert.True((await store.Env.ShipArchiveAsync()).LastShippedFile > 0);

        server.Stop();
        store.Commit(60); // SH1: commits go on
        store.Env.FlushToDataFile();
        await Assert.ThrowsAnyAsync<Exception>(() => store.Env.ShipArchiveAsync());
        Assert.True(store.Env.ArchiveShipping!.PendingFiles > 0);
        Assert.NotNull(store.Env.ArchiveShipping!.LastError);

        server.Start();
        await afterRestart();
        await ObjectArchive.UploadSnapshotAsync(destination, backup.Directory);
        var status = await store.Env.ShipArchiveAsync();
        Assert.Equal(0, status.PendingFiles);
        Assert.Equal(store.LocalFiles()[^1], status.LastShippedFile);
        await ArchiveShippingTests.AssertShippedPrefix(store, destination, status.LastShippedFile);

        var full = await ObjectArchive.RestoreAsync(destination, store.LineageText, store.Combine("full"));
        Assert.True(full.TransactionId > backup.TransactionId + 60, $"restored to {full.TransactionId}, backup {backup.TransactionId}");
        StoreContents.AssertStore(full.Directory, store.States[full.TransactionId], full.TransactionId);
        var random = new Random(seed);
        for (var i = 0; i < 3; i++)
        {
            var target = backup.TransactionId + random.NextInt64(0, full.TransactionId - backup.TransactionId + 1);
            var result = await ObjectArchive.RestoreAsync(destination, store.LineageText, store.Combine($"at-{i}"), new RestoreOptions { ToTransactionId = target });
            StoreContents.AssertStore(result.Directory, store.States[target], target);
        }
    }

    private static S3ArchiveDestination Open(ObjectServer server, string prefix, long? partSize = null)
    {
        var destination = S3ArchiveDestination.ForEndpoint(server.Endpoint, ObjectServer.Bucket, "S3RVER", "S3RVER", prefix);
        destination.PartSize = partSize ?? destination.PartSize;
        return destination;
    }
}
