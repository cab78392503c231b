using System.Reflection;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Voron.Documents.AspNetCore;
using Voron.Documents.AspNetCore.Hosting;

namespace Voron.Tests.AspNetCore;

/// <summary>The registrations without HTTP: lifetimes, keyed stores, start and stop, binding, the health check's states.</summary>
public sealed class HostingTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task StopAsync_completes_saves_and_releases_the_lock_before_the_host_is_disposed()
    {
        var path = _directory.Combine("store");
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s => s.AddVoronDocumentStore(o => o.Path = path)).Build();
        await host.StartAsync();
        await using (var scope = host.Services.CreateAsyncScope())
        {
            var session = scope.ServiceProvider.GetRequiredService<IAsyncDocumentSession>();
            session.StoreRaw("notes", "notes/1", """{"text":"kept"}"""u8);
            await session.SaveChangesAsync();
        }

        await host.StopAsync();

        // H2: the directory is free once StopAsync returns, not only after the container's dispose.
        using var reopened = DocumentStore.Open(new DocumentStoreOptions { Path = path });
        await using var check = reopened.OpenSession();
        using var note = await check.LoadRawAsync("notes/1");
        Assert.NotNull(note);
        Assert.Throws<ObjectDisposedException>(() => host.Services.GetRequiredKeyedService<DocumentStoreHost>("").GetStore()); // H3
    }

    [Fact]
    public async Task Sessions_are_scoped_and_the_store_is_one_singleton()
    {
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s => s.AddVoronDocumentStore(o => o.InMemory = true)).Build();
        await host.StartAsync();
        using var first = host.Services.CreateScope();
        using var second = host.Services.CreateScope();

        Assert.Same(first.ServiceProvider.GetRequiredService<IAsyncDocumentSession>(), first.ServiceProvider.GetRequiredService<IAsyncDocumentSession>());
        Assert.NotSame(first.ServiceProvider.GetRequiredService<IAsyncDocumentSession>(), second.ServiceProvider.GetRequiredService<IAsyncDocumentSession>());
        Assert.Same(first.ServiceProvider.GetRequiredService<DocumentStore>(), second.ServiceProvider.GetRequiredService<DocumentStore>());
        await host.StopAsync();
    }

    [Fact]
    public async Task Keyed_stores_are_separate_stores_with_their_own_options_and_health_checks()
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Audit:InMemory"] = "true",
            ["Audit:MaxDocumentBytes"] = "4096",
        }).Build();
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s =>
        {
            s.AddVoronDocumentStore(o => o.InMemory = true);
            s.AddKeyedVoronDocumentStore("audit", configuration.GetSection("Audit"));
            s.AddHealthChecks().AddVoron().AddVoron(storeKey: "audit");
        }).Build();
        await host.StartAsync();

        var main = host.Services.GetRequiredService<DocumentStore>();
        var audit = host.Services.GetRequiredKeyedService<DocumentStore>("audit");
        Assert.NotSame(main, audit);
        using var scope = host.Services.CreateScope();
        Assert.Same(audit, scope.ServiceProvider.GetRequiredKeyedService<IAsyncDocumentSession>("audit").DocumentStore);
        var auditSession = scope.ServiceProvider.GetRequiredKeyedService<IAsyncDocumentSession>("audit");
        Assert.Throws<DocumentLimitException>(() => auditSession.StoreRaw("log", "log/1", System.Text.Encoding.UTF8.GetBytes($$"""{"x":"{{new string('x', 5000)}}"}""")));

        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();
        Assert.Equal(["voron", "voron-audit"], report.Entries.Keys.Order());
        Assert.Equal(HealthStatus.Healthy, report.Status);
        await host.StopAsync();
    }

    [Fact]
    public void Registering_the_same_store_twice_is_refused()
    {
        var services = new ServiceCollection();
        services.AddKeyedVoronDocumentStore("a", o => o.InMemory = true);

        var error = Assert.Throws<InvalidOperationException>(() => services.AddKeyedVoronDocumentStore("a", o => o.InMemory = true));
        Assert.Contains("'a'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Health_is_unhealthy_while_a_lazily_opened_store_cannot_be_opened_and_healthy_once_it_can()
    {
        var path = _directory.Combine("store");
        var holder = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(path));
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s =>
        {
            s.AddVoronDocumentStore(o => o.Path = path).ConfigureHosting(h => h.OpenOnStart = false);
            s.AddHealthChecks().AddVoron(configure: o => o.MinFreeDiskBytes = 0);
        }).Build();
        await host.StartAsync(); // does not open the store
        var health = host.Services.GetRequiredService<HealthCheckService>();

        var locked = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Unhealthy, locked.Status);
        Assert.Contains($"could not be opened at '{path}'", locked.Entries["voron"].Description, StringComparison.Ordinal);

        holder.Dispose();
        Assert.Equal(HealthStatus.Healthy, (await health.CheckHealthAsync()).Status);
        Assert.NotNull(host.Services.GetRequiredService<DocumentStore>());
        await host.StopAsync();
    }

    [Fact]
    public async Task Health_is_degraded_when_free_disk_space_is_below_the_threshold()
    {
        var path = _directory.Combine("store");
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s =>
        {
            s.AddVoronDocumentStore(o => o.Path = path);
            s.AddHealthChecks().AddVoron(configure: o => o.MinFreeDiskBytes = long.MaxValue);
        }).Build();
        await host.StartAsync();

        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();

        Assert.Equal(HealthStatus.Degraded, report.Status);
        Assert.Contains("bytes free on the store's file system", report.Entries["voron"].Description, StringComparison.Ordinal);
        Assert.True((long)report.Entries["voron"].Data["freeDiskBytes"] > 0);
        await host.StopAsync();
    }

    [Fact]
    public async Task Health_is_degraded_while_archived_journal_files_wait_for_a_destination_that_is_down()
    {
        var path = _directory.Combine("store");
        var destination = new Voron.Tests.Core.Archive.FaultyDestination(new DirectoryArchiveDestination(_directory.Combine("remote"))) { Down = true };
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s =>
        {
            s.AddVoronDocumentStore(o => o.Path = path).ConfigureEnvironment(e =>
            {
                e.JournalFileSize = 64 << 10;
                e.JournalArchiveDirectory = _directory.Combine("archive");
                e.ArchiveDestination = destination;
                e.ArchiveShippingInterval = TimeSpan.FromHours(1);
            });
            s.AddHealthChecks().AddVoron(configure: o =>
            {
                o.MinFreeDiskBytes = 0;
                o.MaxArchivePendingFiles = 0;
            });
        }).Build();
        await host.StartAsync();
        var store = host.Services.GetRequiredService<DocumentStore>();
        for (var i = 0; i < 40; i++)
        {
            await using var session = store.OpenSession();
            session.StoreRaw("notes", $"notes/{i}", Encoding.UTF8.GetBytes($"{{\"text\":\"{new string('x', 4000)}\"}}"));
            await session.SaveChangesAsync(); // SH1: commits go on while the destination is down
        }

        store.Environment.FlushToDataFile();
        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();

        Assert.Equal(HealthStatus.Degraded, report.Status);
        Assert.Contains("wait to be shipped", report.Entries["voron"].Description, StringComparison.Ordinal);
        Assert.True((int)report.Entries["voron"].Data["archivePendingFiles"] > 0);
        await host.StopAsync();
    }

    [Fact]
    public async Task Health_is_unhealthy_while_another_copy_of_the_store_holds_its_archive_lease()
    {
        var path = _directory.Combine("store");
        var destination = new DirectoryArchiveDestination(_directory.Combine("remote"));
        using var host = Host.CreateDefaultBuilder().ConfigureServices(s =>
        {
            s.AddVoronDocumentStore(o => o.Path = path).ConfigureEnvironment(e =>
            {
                e.JournalArchiveDirectory = _directory.Combine("archive");
                e.ArchiveDestination = destination;
                e.ArchiveShippingInterval = TimeSpan.FromHours(1);
            });
            s.AddHealthChecks().AddVoron(configure: o => o.MinFreeDiskBytes = 0);
        }).Build();
        await host.StartAsync();
        var store = host.Services.GetRequiredService<DocumentStore>();

        // Another copy of the store takes the lease over (as after this one's lease expired): a
        // compare-and-swap on whatever is there, retried if this store's first pass writes meanwhile.
        var key = Voron.Archive.ArchiveKeys.Lease(store.Environment.StoreId);
        var other = new Voron.Archive.ArchiveLeaseRecord(new string('e', 32), new string('1', 16), "other-machine", 4242,
            DateTimeOffset.UtcNow.AddDays(1).ToUnixTimeMilliseconds());
        while (await destination.PutIfVersionAsync(key, other.Encode(), (await destination.GetVersionedAsync(key))?.Version) == null)
        {
        }

        await Assert.ThrowsAsync<InvalidOperationException>(() => store.Environment.ShipArchiveAsync());
        var report = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync();

        Assert.Equal(HealthStatus.Unhealthy, report.Status);
        Assert.Contains("other-machine", report.Entries["voron"].Description, StringComparison.Ordinal);
        Assert.Equal(nameof(ArchiveLeaseState.HeldByAnother), report.Entries["voron"].Data["archiveLease"]);
        await host.StopAsync();
    }

    [Fact]
    public void Binder_binds_every_settable_option_except_the_serializer_options()
    {
        // A setting added to DocumentStoreOptions or DocumentStoreHostingOptions must be bound too
        // (the binder is hand-written for Native AOT: DocumentStoreOptionsBinder).
        var settable = typeof(DocumentStoreOptions).GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Concat(typeof(DocumentStoreHostingOptions).GetProperties(BindingFlags.Public | BindingFlags.Instance))
            .Where(p => p.SetMethod?.IsPublic == true && p.Name != nameof(DocumentStoreOptions.SerializerOptions) && p.Name != nameof(DocumentStoreOptions.TimeProvider) &&
                p.Name != nameof(DocumentStoreOptions.EncryptionKeyProvider)) // never from configuration (EncryptionKeySettings)
            .Select(p => p.Name);
        Assert.Equal(settable.Order(), DocumentStoreOptionsBinder.Keys.Order());

        var section = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["s:path"] = "/var/lib/app", ["s:InMemory"] = "true", ["s:Durability"] = "lazy", ["s:LazyFlushInterval"] = "00:00:00.250",
            ["s:MaxDocumentBytes"] = "2048", ["s:CompressionThresholdBytes"] = "0", ["s:OptimisticConcurrency"] = "false",
            ["s:BulkInsertBatchSize"] = "7", ["s:IndexBuildBatchSize"] = "9", ["s:OpenOnStart"] = "false", ["s:SlowCommitThreshold"] = "00:00:02",
            ["s:ChangeFeed:Enabled"] = "false", ["s:ChangeFeed:Retention"] = "1.00:00:00",
            ["s:Expiration:Enabled"] = "false", ["s:Expiration:SweepInterval"] = "00:00:05", ["s:Expiration:BatchSize"] = "64", ["s:Expiration:JsonField"] = "expiresAt",
        }).Build().GetSection("s");
        var options = new DocumentStoreOptions();
        var hosting = new DocumentStoreHostingOptions();
        DocumentStoreOptionsBinder.Bind(section, options);
        DocumentStoreOptionsBinder.Bind(section, hosting);

        Assert.Equal(("/var/lib/app", true, DurabilityMode.Lazy, TimeSpan.FromMilliseconds(250), 2048, 0, false, 7, 9),
            (options.Path, options.InMemory, options.Durability, options.LazyFlushInterval, options.MaxDocumentBytes, options.CompressionThresholdBytes,
                options.OptimisticConcurrency, options.BulkInsertBatchSize, options.IndexBuildBatchSize));
        Assert.Equal((false, TimeSpan.FromSeconds(2)), (hosting.OpenOnStart, hosting.SlowCommitThreshold));
        Assert.Equal((false, TimeSpan.FromDays(1)), (options.ChangeFeed.Enabled, options.ChangeFeed.Retention));
        Assert.Equal((false, TimeSpan.FromSeconds(5), 64, "expiresAt"),
            (options.Expiration.Enabled, options.Expiration.SweepInterval, options.Expiration.BatchSize, options.Expiration.JsonField));
        var misspelt = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?> { ["s:Expiration:Intervall"] = "00:00:05" }).Build().GetSection("s");
        Assert.Contains("Intervall", Assert.Throws<InvalidOperationException>(() => DocumentStoreOptionsBinder.Bind(misspelt, new DocumentStoreOptions())).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null, null, true, null)]
    [InlineData("\"17\"", null, true, 17L)]
    [InlineData(null, "*", true, 0L)]
    [InlineData("W/\"17\"", null, false, null)]
    [InlineData("*", null, false, null)]
    [InlineData("\"abc\"", null, false, null)]
    [InlineData("\"1\", \"2\"", null, false, null)]
    [InlineData(null, "\"3\"", false, null)]
    public void IfMatchVersion_reads_the_preconditions_it_can_honour(string? ifMatch, string? ifNoneMatch, bool bound, long? expected)
    {
        var context = new Microsoft.AspNetCore.Http.DefaultHttpContext();
        if (ifMatch != null)
        {
            context.Request.Headers.IfMatch = ifMatch;
        }

        if (ifNoneMatch != null)
        {
            context.Request.Headers.IfNoneMatch = ifNoneMatch;
        }

        var result = IfMatchVersion.From(context.Request);

        Assert.Equal(bound, result.HasValue);
        Assert.Equal(expected, result?.ExpectedVersion);
    }

    [Fact]
    public void DocumentETag_round_trips_versions_and_refuses_weak_tags()
    {
        Assert.Equal("\"42\"", DocumentETag.Format(42));
        Assert.True(DocumentETag.TryParse("\"42\"", out var version));
        Assert.Equal(42, version);
        Assert.False(DocumentETag.TryParse("W/\"42\"", out _));
        Assert.False(DocumentETag.TryParse("42", out _));
        Assert.False(DocumentETag.TryParse("\"0\"", out _));
    }

    public void Dispose() => _directory.Dispose();
}
