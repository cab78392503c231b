using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;
using DocumentsApi;
using Microsoft.Extensions.DependencyInjection;
using Voron.Documents.AspNetCore;
using Voron.Tests.Core.Journal;

namespace Voron.Tests.AspNetCore;

/// <summary>samples/DocumentsApi over real HTTP semantics (a test server): what a client of the sample sees.</summary>
public sealed class DocumentsApiTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Products_create_read_update_with_IfMatch_and_delete()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        using var client = factory.CreateClient();

        using var created = await client.PostAsJsonAsync("/products", new { name = "Dune", category = "books", price = 9.5 });
        Assert.Equal(HttpStatusCode.Created, created.StatusCode);
        Assert.Equal("/products/1", created.Headers.Location?.OriginalString);
        var createdTag = created.Headers.ETag!;
        Assert.False(createdTag.IsWeak);

        using var read = await client.GetAsync("/products/1");
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        Assert.Equal(createdTag, read.Headers.ETag);
        Assert.Equal("application/json", read.Content.Headers.ContentType?.MediaType);
        Assert.Equal("""{"id":"products/1","name":"Dune","category":"books","price":9.5}""", await read.Content.ReadAsStringAsync());

        using var update = new HttpRequestMessage(HttpMethod.Put, "/products/1") { Content = JsonContent.Create(new { name = "Dune", category = "books", price = 12.0 }) };
        update.Headers.IfMatch.Add(createdTag);
        using var updated = await client.SendAsync(update);
        Assert.Equal(HttpStatusCode.OK, updated.StatusCode);
        Assert.NotEqual(createdTag, updated.Headers.ETag);

        // The same If-Match again: the version it names is gone, so the precondition fails.
        using var stale = new HttpRequestMessage(HttpMethod.Put, "/products/1") { Content = JsonContent.Create(new { name = "Dune", category = "books", price = 1.0 }) };
        stale.Headers.IfMatch.Add(createdTag);
        using var refused = await client.SendAsync(stale);
        Assert.Equal(HttpStatusCode.PreconditionFailed, refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        using (var problem = JsonDocument.Parse(await refused.Content.ReadAsStringAsync()))
        {
            Assert.Equal("products/1", problem.RootElement.GetProperty("id").GetString());
            Assert.Equal(long.Parse(createdTag.Tag.Trim('"')), problem.RootElement.GetProperty("expectedVersion").GetInt64());
        }

        Assert.Contains("\"price\":12", await client.GetStringAsync("/products/1"));

        using var notModified = new HttpRequestMessage(HttpMethod.Get, "/products/1");
        notModified.Headers.IfNoneMatch.Add(updated.Headers.ETag!);
        Assert.Equal(HttpStatusCode.NotModified, (await client.SendAsync(notModified)).StatusCode);

        Assert.Equal(HttpStatusCode.NoContent, (await client.DeleteAsync("/products/1")).StatusCode);
        using var gone = await client.GetAsync("/products/1");
        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
        Assert.Equal("application/problem+json", gone.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task Get_streams_the_stored_json_byte_for_byte_without_reserializing()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        using var client = factory.CreateClient();
        var stored = """{ "name" : "Odd spacing",   "price":1e1, "category":"books", "extra": [1, 2] }""";
        await using (var scope = factory.Services.CreateAsyncScope())
        {
            var session = scope.ServiceProvider.GetRequiredService<IAsyncDocumentSession>();
            session.StoreRaw("products", "products/raw", Encoding.UTF8.GetBytes(stored));
            await session.SaveChangesAsync();
        }

        using var response = await client.GetAsync("/products/raw");
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(Encoding.UTF8.GetByteCount(stored), response.Content.Headers.ContentLength);
        Assert.Equal(stored, await response.Content.ReadAsStringAsync()); // a serializer would have rewritten 1e1 and the spaces
    }

    [Fact]
    public async Task Query_returns_the_indexed_matches_in_price_order()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        using var client = factory.CreateClient();
        foreach (var (name, category, price) in new[] { ("a", "books", 30.0), ("b", "games", 5.0), ("c", "books", 10.0), ("d", "books", 20.0) })
        {
            (await client.PostAsJsonAsync("/products", new { name, category, price })).EnsureSuccessStatusCode();
        }

        using var response = await client.GetAsync("/products?category=books&maxPrice=25");
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var json = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(["c", "d"], json.RootElement.EnumerateArray().Select(p => p.GetProperty("name").GetString()));
        Assert.Contains("products_by_category_price", factory.Services.GetRequiredService<DocumentStore>().GetIndexes("products").Select(i => i.Definition.Name));
    }

    [Fact]
    public async Task Concurrent_updates_of_one_product_give_one_success_and_one_409()
    {
        var gate = new BarrierSession.Gate(2);
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"), services =>
            services.AddScoped<IAsyncDocumentSession>(provider => new BarrierSession(provider.GetRequiredService<DocumentStore>().OpenSession(), gate)));
        using var client = factory.CreateClient();
        await using (var scope = factory.Services.CreateAsyncScope())
        {
            var session = scope.ServiceProvider.GetRequiredService<DocumentStore>().OpenSession();
            session.Store(new Product { Id = "products/7", Name = "Chess", Category = "games", Price = 20 }, AppJson.Default.Product);
            await session.SaveChangesAsync();
        }

        // Both requests load version N, then both save: optimistic concurrency lets one through.
        var responses = await Task.WhenAll(
            client.PatchAsJsonAsync("/products/7/price", new { price = 21.0 }),
            client.PatchAsJsonAsync("/products/7/price", new { price = 22.0 }));

        Assert.Equal([HttpStatusCode.OK, HttpStatusCode.Conflict], responses.Select(r => r.StatusCode).Order());
        var conflict = responses.Single(r => r.StatusCode == HttpStatusCode.Conflict);
        Assert.Equal("application/problem+json", conflict.Content.Headers.ContentType?.MediaType);
        Assert.Contains("Concurrency conflict on document 'products/7'", await conflict.Content.ReadAsStringAsync());
        var winner = await responses.Single(r => r.IsSuccessStatusCode).Content.ReadFromJsonAsync<JsonElement>();
        Assert.Contains($"\"price\":{winner.GetProperty("price").GetDouble()}", await client.GetStringAsync("/products/7"));
        foreach (var response in responses)
        {
            response.Dispose();
        }
    }

    [Fact]
    public async Task Health_turns_unhealthy_after_a_journal_write_fails_and_the_failure_is_logged_once()
    {
        var fileSystem = new RecordingFileSystem(StoreFactory.NewFileSystem());
        await using var factory = new DocumentsApiFactory(null, services =>
            services.Configure<DocumentStoreHostingOptions>("", o => o.EnvironmentOptionsFactory = _ => WithFileSystem(fileSystem)));
        using var client = factory.CreateClient();
        (await client.PostAsJsonAsync("/products", new { name = "ok", category = "books", price = 1.0 })).EnsureSuccessStatusCode();
        using (var healthy = await client.GetAsync("/health"))
        {
            Assert.Equal(HttpStatusCode.OK, healthy.StatusCode);
        }

        fileSystem.FailWhen = line => line.StartsWith("Write /store/journal/", StringComparison.Ordinal);
        using var failed = await client.PostAsJsonAsync("/products", new { name = "lost", category = "books", price = 2.0 });
        Assert.True(failed.StatusCode is HttpStatusCode.ServiceUnavailable or HttpStatusCode.InternalServerError, $"got {failed.StatusCode}");

        for (var i = 0; i < 2; i++)
        {
            using var health = await client.GetAsync("/health");
            Assert.Equal(HttpStatusCode.ServiceUnavailable, health.StatusCode);
            Assert.Equal("Unhealthy", await health.Content.ReadAsStringAsync());
        }

        var logged = Assert.Single(factory.Logs.Of(3));
        Assert.Contains("injected failure", logged.Message, StringComparison.Ordinal);
        Assert.Contains("fail-stop", logged.Message, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.OK, (await client.GetAsync("/products/1")).StatusCode); // reads still work
    }

    [Fact]
    public async Task Engine_failure_outside_any_request_is_logged_as_it_happens_and_health_reads_it()
    {
        // H5: the host hears of the failure from the engine (OnFailure, chained before the app's
        // own observer) and reads its state (StorageEnvironment.Failure). Before, it learnt of a
        // failure only when a request or the health check's write probe ran into it, so nothing
        // was logged here until then.
        var fileSystem = new RecordingFileSystem(StoreFactory.NewFileSystem());
        var observed = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var factory = new DocumentsApiFactory(null, services =>
            services.Configure<DocumentStoreHostingOptions>("", o =>
            {
                o.EnvironmentOptionsFactory = _ => WithFileSystem(fileSystem);
                o.EnvironmentConfigurations.Add(options => options.OnFailure = e => observed.TrySetResult(e));
            }));
        using var client = factory.CreateClient();
        (await client.PostAsJsonAsync("/products", new { name = "ok", category = "books", price = 1.0 })).EnsureSuccessStatusCode();
        var host = factory.Services.GetRequiredKeyedService<Voron.Documents.AspNetCore.Hosting.DocumentStoreHost>("");
        var environment = host.Environment!;

        fileSystem.FailWhen = line => line.StartsWith("Write /store/journal/", StringComparison.Ordinal);
        Assert.ThrowsAny<Exception>(() =>
        {
            using var tx = environment.BeginWrite();
            tx.CreateTree("direct").Put("k"u8, "v"u8);
            tx.Commit();
        });

        // The app's observer runs after the host's: once it has the failure, the host has logged it.
        var cause = await observed.Task.WaitAsync(TimeSpan.FromMinutes(2));
        Assert.True(environment.IsFailed);
        var logged = Assert.Single(factory.Logs.Of(3));
        Assert.Contains("injected failure", logged.Message, StringComparison.Ordinal);
        Assert.Same(cause, host.Failure?.InnerException);

        using (var health = await client.GetAsync("/health"))
        {
            Assert.Equal(HttpStatusCode.ServiceUnavailable, health.StatusCode);
            Assert.Equal("Unhealthy", await health.Content.ReadAsStringAsync());
        }

        Assert.Single(factory.Logs.Of(3)); // still once
    }

    [Fact]
    public async Task Metrics_endpoint_shows_the_document_store_instruments()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        using var client = factory.CreateClient();
        (await client.PostAsJsonAsync("/products", new { name = "m", category = "books", price = 1.0 })).EnsureSuccessStatusCode();

        var metrics = await client.GetStringAsync("/metrics");

        Assert.Contains("db_client_operation_duration_seconds_bucket{", metrics);
        Assert.Contains("db_operation_name=\"save_changes\"", metrics);
        Assert.Contains("voron_journal_flush_duration", metrics);
    }

    [Fact]
    public async Task Store_open_is_logged_with_its_path()
    {
        var path = _directory.Combine("store");
        await using var factory = new DocumentsApiFactory(path);
        using var client = factory.CreateClient();

        var opened = Assert.Single(factory.Logs.Of(1));
        Assert.Contains($"opened at {path}", opened.Message, StringComparison.Ordinal);
        Assert.Contains("recovery included", opened.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Slow_commits_flushes_and_the_close_are_logged()
    {
        var factory = new DocumentsApiFactory(_directory.Combine("store"), settings: [("Voron:Documents:SlowCommitThreshold", "00:00:00.0000001"), ("Logging:LogLevel:Voron.Documents", "Debug")]);
        await using (factory)
        {
            using var client = factory.CreateClient();
            (await client.PostAsJsonAsync("/products", new { name = "s", category = "books", price = 1.0 })).EnsureSuccessStatusCode();
            Assert.Contains(factory.Logs.Of(4), e => e.Message.Contains("a journal write and its fdatasync took", StringComparison.Ordinal));
        }

        // The close flushes the data file (debug: flush statistics), then says what it did.
        Assert.Contains(factory.Logs.Of(5), e => e.Message.Contains("to the data file", StringComparison.Ordinal));
        Assert.Contains("lock released", Assert.Single(factory.Logs.Of(7)).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Shutdown_closes_the_store_so_a_second_host_opens_it_with_every_saved_product()
    {
        var path = _directory.Combine("store");
        await using (var first = new DocumentsApiFactory(path))
        {
            using var client = first.CreateClient();
            var saves = Enumerable.Range(0, 20).Select(i => client.PostAsJsonAsync("/products", new { name = $"p{i}", category = "books", price = i }));
            Assert.All(await Task.WhenAll(saves), r => Assert.Equal(HttpStatusCode.Created, r.StatusCode));
        }

        await using var second = new DocumentsApiFactory(path);
        using var again = second.CreateClient();
        using var json = JsonDocument.Parse(await again.GetStringAsync("/products?category=books&take=100"));
        Assert.Equal(20, json.RootElement.GetArrayLength());
        Assert.Single(second.Logs.Of(1));
    }

    private static StorageEnvironmentOptions WithFileSystem(RecordingFileSystem fileSystem)
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fileSystem);
        options.JournalFileSize = 1 << 20;
        options.MaxDataFileSize = 4L << 30;
        return options;
    }

    public void Dispose() => _directory.Dispose();
}
