using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Voron.Documents.AspNetCore;
using Voron.Tests.Core.Archive;
using Voron.Tests.Documents;
using Voron.Tests.Documents.Replica;

namespace Voron.Tests.AspNetCore;

/// <summary>A hosted read replica (AsReadReplica, H7): it opens without writing, serves reads, refuses writes, and its health follows the replica's state.</summary>
public sealed class ReplicaHostingTests(ITestOutputHelper output)
{
    private static readonly TestJson Json = TestJson.Default;

    private static readonly IndexDefinition ByAge = IndexDefinition.For(Json.User, "users_by_age", u => u.Age);

    private static readonly IndexDefinition ByCity = IndexDefinition.For(Json.User, "users_by_city", u => u.Address!.City);

    /// <summary>A primary with a few users, its snapshot uploaded and everything shipped.</summary>
    private static async Task<ReplicatedDocuments> PrimaryAsync(int seed)
    {
        var primary = new ReplicatedDocuments();
        await primary.Primary.EnsureIndexAsync(ByAge);
        var random = new Random(seed);
        await using (var session = primary.Primary.OpenSession())
        {
            for (var i = 0; i < 20; i++)
            {
                session.Store(DocumentTestStore.NewUser($"user{i}", random.Next(18, 80)), Json.User, $"users/{i:D2}");
            }

            await session.SaveChangesAsync();
        }

        await primary.UploadSnapshotAsync();
        return primary;
    }

    private static IHost ReplicaHost(ReplicatedDocuments primary, IArchiveDestination destination, CapturedLogs? logs = null) =>
        Host.CreateDefaultBuilder().ConfigureLogging(logging =>
        {
            if (logs != null)
            {
                logging.AddProvider(logs);
            }
        }).ConfigureServices(s =>
        {
            s.AddVoronDocumentStore(o => o.Path = primary.Combine("replica"))
                .AsReadReplica(destination, new ReplicaOptions { PollInterval = TimeSpan.FromMilliseconds(20) })
                .EnsureIndex(ByAge)
                .EnsureIndex(ByCity);
            s.AddHealthChecks().AddVoron(configure: o => o.MinFreeDiskBytes = 0);
        }).Build();

    [Fact]
    public async Task Hosted_replica_serves_the_primarys_documents_refuses_writes_logs_the_index_it_lacks_and_is_healthy_while_following()
    {
        var seed = TestSeed.Next(output, nameof(Hosted_replica_serves_the_primarys_documents_refuses_writes_logs_the_index_it_lacks_and_is_healthy_while_following));
        using var primary = await PrimaryAsync(seed);
        var logs = new CapturedLogs();
        using var host = ReplicaHost(primary, primary.Destination, logs);
        await host.StartAsync();
        var store = host.Services.GetRequiredService<DocumentStore>();
        await ReplicatedDocuments.WaitAsync(store, await primary.ShipAsync());

        var missing = Assert.Single(logs.Of(8)); // H7: users_by_city is not on the primary; users_by_age is
        Assert.Contains("users_by_city", missing.Message, StringComparison.Ordinal);
        Assert.Equal(primary.Primary.GetIndexes(), store.GetIndexes());

        await using (var scope = host.Services.CreateAsyncScope())
        {
            var session = scope.ServiceProvider.GetRequiredService<IAsyncDocumentSession>();
            Assert.Equal(20, await session.Query(Json.User).Where(u => u.Age >= 0).CountAsync());
            var refused = Assert.Throws<InvalidOperationException>(() => session.Store(DocumentTestStore.NewUser("x", 1), Json.User, "users/x"));
            Assert.Contains("Write to the primary", refused.Message, StringComparison.Ordinal);
        }

        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        Assert.Equal(HealthStatus.Healthy, report.Status);
        Assert.Contains("read replica", report.Entries["voron"].Description, StringComparison.Ordinal);
        Assert.Equal(nameof(ReplicaState.Following), report.Entries["voron"].Data["replicaState"]);
        Assert.Equal(store.Environment.LastCommittedTransactionId, report.Entries["voron"].Data["replicaAppliedTransaction"]);
        await host.StopAsync();
    }

    [Fact]
    public async Task Hosted_replica_is_degraded_while_its_destination_cannot_be_reached()
    {
        var seed = TestSeed.Next(output, nameof(Hosted_replica_is_degraded_while_its_destination_cannot_be_reached));
        using var primary = await PrimaryAsync(seed);
        var destination = new FaultyDestination(primary.Destination);
        using var host = ReplicaHost(primary, destination);
        await host.StartAsync();
        var store = host.Services.GetRequiredService<DocumentStore>();

        destination.Down = true;
        using (var timeout = new CancellationTokenSource(ReplicatedDocuments.Patience))
        {
            while (store.Environment.Replica!.ConsecutiveFailures == 0)
            {
                await Task.Delay(10, timeout.Token); // the replica's next pass, whenever it comes
            }
        }

        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        Assert.Equal(HealthStatus.Degraded, report.Status);
        Assert.Contains("failed to reach", report.Entries["voron"].Description, StringComparison.Ordinal);
        await host.StopAsync();
    }

    [Fact]
    public async Task Hosted_replica_is_unhealthy_once_a_fail_safe_check_stopped_it()
    {
        var seed = TestSeed.Next(output, nameof(Hosted_replica_is_unhealthy_once_a_fail_safe_check_stopped_it));
        using var primary = await PrimaryAsync(seed);
        var journal = Path.Combine(primary.Combine("remote"), primary.Environment.StoreId.ToString("x16", CultureInfo.InvariantCulture), "journal");
        for (var ship = 0; ship < 2; ship++)
        {
            await using (var session = primary.Primary.OpenSession())
            {
                session.Store(DocumentTestStore.NewUser($"later{ship}", 30), Json.User, $"users/later{ship}");
                await session.SaveChangesAsync();
            }

            await primary.ShipAsync();
        }

        // RE5: a gap. The last object is the second ship's one file; the one before it, the first ship's
        // last, holds transactions after the snapshot, which the replica needs.
        File.Delete(Directory.GetFiles(journal).Order(StringComparer.Ordinal).ToList()[^2]);
        using var host = ReplicaHost(primary, primary.Destination);
        await host.StartAsync();
        var store = host.Services.GetRequiredService<DocumentStore>();
        using (var timeout = new CancellationTokenSource(ReplicatedDocuments.Patience))
        {
            while (store.Environment.Replica!.State != ReplicaState.Stopped)
            {
                await Task.Delay(10, timeout.Token);
            }
        }

        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        Assert.Equal(HealthStatus.Unhealthy, report.Status);
        Assert.Contains("stopped following", report.Entries["voron"].Description, StringComparison.Ordinal);
        Assert.Equal(nameof(ReplicaState.Stopped), report.Entries["voron"].Data["replicaState"]);
        await host.StopAsync();
    }
}
