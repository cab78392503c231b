using System.Net;
using System.Net.Http.Headers;
using System.Net.ServerSentEvents;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.DependencyInjection;
using Voron.Documents.AspNetCore;

namespace Voron.Tests.AspNetCore;

/// <summary>
/// The change stream of samples/DocumentsApi (<c>MapDocumentChanges</c>, rules SE1–SE6) through a
/// test server: a client reading <c>GET /changes</c> as server-sent events while the test saves.
/// No timing assertion: every wait has a hang guard (<see cref="EventStreamReader.HangGuard"/>).
/// </summary>
public sealed class ChangeStreamTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task A_client_sees_history_then_live_changes_in_version_order_with_the_version_as_id()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        var store = factory.Services.GetRequiredService<DocumentStore>();
        await SaveAsync(store, "products", "products/a", "products/b", "products/c");
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, "/changes");
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);
        Assert.True(response.Headers.CacheControl?.NoCache, "Cache-Control: no-cache");
        using var events = new EventStreamReader(await response.Content.ReadAsStreamAsync());
        var history = await events.EventsAsync(3);

        await SaveAsync(store, "products", "products/d");
        await using (var session = store.OpenSession())
        {
            session.Delete("products/a");
            await session.SaveChangesAsync();
        }

        var live = await events.EventsAsync(2);
        var all = history.Concat(live).ToList();
        Assert.Equal(["products/a", "products/b", "products/c", "products/d", "products/a"], all.Select(e => e.Json.GetProperty("id").GetString()));
        Assert.Equal(["stored", "stored", "stored", "stored", "deleted"], all.Select(e => e.Event));
        Assert.Equal(all.Select(e => e.Version).Order(), all.Select(e => e.Version)); // version order
        Assert.Equal(all.Count, all.Select(e => e.Version).Distinct().Count());
        foreach (var e in all)
        {
            Assert.Equal("products", e.Json.GetProperty("collection").GetString());
            Assert.Equal(e.Version, e.Json.GetProperty("version").GetInt64()); // SE4
            Assert.True(e.Json.GetProperty("lastModified").TryGetDateTimeOffset(out _));
            Assert.DoesNotContain('\n', e.Data!); // SE6
        }
    }

    [Fact]
    public async Task The_platforms_own_event_stream_parser_reads_the_events()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        var store = factory.Services.GetRequiredService<DocumentStore>();
        await SaveAsync(store, "products", "products/x", "products/été: \"quoted\"");
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, "/changes");
        var parser = SseParser.Create(await response.Content.ReadAsStreamAsync());
        var items = new List<(string Type, string Data, string Id)>();
        using var guard = new CancellationTokenSource(EventStreamReader.HangGuard);
        await foreach (var item in parser.EnumerateAsync(guard.Token))
        {
            items.Add((item.EventType, item.Data, parser.LastEventId));
            if (items.Count == 2)
            {
                break;
            }
        }

        Assert.Equal(["stored", "stored"], items.Select(i => i.Type));
        Assert.Equal(["products/x", "products/été: \"quoted\""], items.Select(i => JsonDocument.Parse(i.Data).RootElement.GetProperty("id").GetString()));
        Assert.Equal(items.Select(i => JsonDocument.Parse(i.Data).RootElement.GetProperty("version").GetInt64().ToString(System.Globalization.CultureInfo.InvariantCulture)), items.Select(i => i.Id));
    }

    [Fact]
    public async Task Reconnecting_with_Last_Event_ID_resumes_after_it_without_gap_or_duplicate_and_wins_over_since()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        var store = factory.Services.GetRequiredService<DocumentStore>();
        await SaveAsync(store, "products", "products/1", "products/2", "products/3", "products/4");
        using var client = factory.CreateClient();

        List<ServerSentEvent> first;
        using (var response = await OpenAsync(client, "/changes?since=0"))
        using (var events = new EventStreamReader(await response.Content.ReadAsStreamAsync()))
        {
            first = await events.EventsAsync(2);
        } // the client goes away after two events

        await SaveAsync(store, "products", "products/5", "products/6");

        // As EventSource reconnects: the same URL (?since=0) and the id of the last event received.
        using var resumed = await OpenAsync(client, "/changes?since=0", lastEventId: first[^1].Id);
        using var rest = new EventStreamReader(await resumed.Content.ReadAsStreamAsync());
        var second = await rest.EventsAsync(4);

        Assert.Equal(["products/1", "products/2"], first.Select(e => e.Json.GetProperty("id").GetString()));
        Assert.Equal(["products/3", "products/4", "products/5", "products/6"], second.Select(e => e.Json.GetProperty("id").GetString()));
        Assert.True(second[0].Version > first[^1].Version);

        // ?since= alone starts after it too.
        using var fromSince = await OpenAsync(client, $"/changes?since={second[1].Version}");
        using var tail = new EventStreamReader(await fromSince.Content.ReadAsStreamAsync());
        Assert.Equal(["products/5", "products/6"], (await tail.EventsAsync(2)).Select(e => e.Json.GetProperty("id").GetString()));
    }

    [Fact]
    public async Task The_collection_filter_sends_only_that_collections_changes()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        var store = factory.Services.GetRequiredService<DocumentStore>();
        await SaveAsync(store, "products", "products/1");
        await SaveAsync(store, "orders", "orders/1");
        await SaveAsync(store, "products", "products/2");
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, "/changes?collection=orders");
        using var events = new EventStreamReader(await response.Content.ReadAsStreamAsync());
        var history = await events.EventsAsync(1);
        await SaveAsync(store, "products", "products/3");
        await SaveAsync(store, "orders", "orders/2");
        var live = await events.EventsAsync(1);

        Assert.Equal(["orders/1", "orders/2"], history.Concat(live).Select(e => e.Json.GetProperty("id").GetString()));
        Assert.All(history.Concat(live), e => Assert.Equal("orders", e.Json.GetProperty("collection").GetString()));
    }

    [Theory]
    [InlineData("/changes?since=-1", null, "since")]
    [InlineData("/changes?since=abc", null, "since")]
    [InlineData("/changes?since=now", null, "since")]
    [InlineData("/changes?since=99999999999999999999", null, "since")]
    [InlineData("/changes?since=1&since=2", null, "since")]
    [InlineData("/changes?since=%201", null, "since")]
    [InlineData("/changes?collection=", null, "collection")]
    [InlineData("/changes?collection=a&collection=b", null, "collection")]
    [InlineData("/changes?collection=a%2Fb", null, "collection")]
    [InlineData("/changes", "x", "Last-Event-ID")]
    [InlineData("/changes", "-5", "Last-Event-ID")]
    [InlineData("/changes?since=1", "1.5", "Last-Event-ID")]
    public async Task Bad_positions_and_collections_are_400_problems_naming_the_value(string path, string? lastEventId, string says)
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, path, lastEventId);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(400, problem.RootElement.GetProperty("status").GetInt32());
        Assert.Contains(says, problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Changes_that_are_ready_together_go_out_in_one_flush_not_one_per_event()
    {
        var body = new FlushCountingFilter("/changes");
        await using var app = await StartAppAsync("/changes", o => o.KeepAliveInterval = Timeout.InfiniteTimeSpan, body);
        var store = app.Services.GetRequiredService<DocumentStore>();
        await using (var session = store.OpenSession())
        {
            for (var i = 0; i < 200; i++)
            {
                session.StoreRaw("products", $"products/{i}", """{"name":"n"}"""u8);
            }

            await session.SaveChangesAsync(); // 200 changes in one commit: all ready when the stream reads
        }

        using var client = app.GetTestClient();
        using var response = await OpenAsync(client, "/changes");
        using var events = new EventStreamReader(await response.Content.ReadAsStreamAsync());
        var received = await events.EventsAsync(200);

        Assert.Equal(Enumerable.Range(0, 200).Select(i => $"products/{i}").Order(StringComparer.Ordinal), received.Select(e => e.Json.GetProperty("id").GetString()!).Order(StringComparer.Ordinal));
        Assert.InRange(body.Flushes, 1, 10); // SE3: the opening flush, then the history in a few writes (32 KiB each at most), not 200
    }

    [Fact]
    public async Task A_client_that_disconnects_ends_the_servers_enumeration_and_the_store_stays_usable()
    {
        // No keep-alive: only the disconnect itself (RequestAborted) can end the waiting stream.
        var ended = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var app = await StartAppAsync("/changes", o => o.KeepAliveInterval = Timeout.InfiniteTimeSpan, new AfterRequest("/changes", ended));
        var store = app.Services.GetRequiredService<DocumentStore>();
        await SaveAsync(store, "products", "products/1");
        using var client = app.GetTestClient();

        using (var response = await OpenAsync(client, "/changes"))
        using (var events = new EventStreamReader(await response.Content.ReadAsStreamAsync()))
        {
            await events.EventsAsync(1); // now waiting live for the next change
        }

        await ended.Task.WaitAsync(EventStreamReader.HangGuard); // SE5: the request delegate returned

        await SaveAsync(store, "products", "products/2");
        await using var session = store.OpenSession();
        Assert.NotNull(await session.LoadRawAsync("products/2"));
        using var again = await OpenAsync(client, "/changes?since=1");
        using var next = new EventStreamReader(await again.Content.ReadAsStreamAsync());
        Assert.Equal("products/2", (await next.EventsAsync(1))[0].Json.GetProperty("id").GetString());
    }

    [Fact]
    public async Task Stopping_the_app_ends_an_open_stream_and_the_stop_does_not_wait_for_the_client()
    {
        var factory = new DocumentsApiFactory(_directory.Combine("store"));
        try
        {
            using var client = factory.CreateClient();
            using var response = await OpenAsync(client, "/changes");
            using var events = new EventStreamReader(await response.Content.ReadAsStreamAsync());

            await factory.DisposeAsync().AsTask().WaitAsync(EventStreamReader.HangGuard); // SE5: ApplicationStopping ends the stream

            Assert.Null(await NextOrEndAsync(events));
        }
        finally
        {
            await factory.DisposeAsync();
        }
    }

    [Fact]
    public async Task A_position_older_than_retained_is_410_with_the_oldest_position()
    {
        var path = _directory.Combine("store");
        await using (var off = DocumentStore.Open(new DocumentStoreOptions { Path = path, ChangeFeed = { Enabled = false } }))
        {
            await SaveAsync(off, "products", "products/1", "products/2"); // not in the log: the feed is off
        }

        await using var factory = new DocumentsApiFactory(path); // the feed on again: the log starts at the current version
        var oldest = factory.Services.GetRequiredService<DocumentStore>().OldestChangePosition;
        Assert.True(oldest > 0);
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, "/changes?since=1");

        Assert.Equal(HttpStatusCode.Gone, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(oldest, problem.RootElement.GetProperty("oldest").GetInt64());
        Assert.Equal(1, problem.RootElement.GetProperty("requested").GetInt64());

        using var accepted = await OpenAsync(client, $"/changes?since={oldest}");
        Assert.Equal(HttpStatusCode.OK, accepted.StatusCode);
        using var zero = await OpenAsync(client, "/changes?since=0"); // CF8: 0 is the oldest retained position
        Assert.Equal(HttpStatusCode.OK, zero.StatusCode);
        using var none = await OpenAsync(client, "/changes");
        Assert.Equal(HttpStatusCode.OK, none.StatusCode);
    }

    [Fact]
    public async Task A_position_ahead_of_the_store_is_410()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"));
        var store = factory.Services.GetRequiredService<DocumentStore>();
        await SaveAsync(store, "products", "products/a");
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, "/changes?since=1000");

        Assert.Equal(HttpStatusCode.Gone, response.StatusCode);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal(1000, problem.RootElement.GetProperty("requested").GetInt64());
        Assert.Contains("ahead of the store", problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_store_with_the_feed_off_answers_404()
    {
        await using var factory = new DocumentsApiFactory(_directory.Combine("store"), services =>
            services.PostConfigure<DocumentStoreOptions>("", o => o.ChangeFeed.Enabled = false));
        using var client = factory.CreateClient();

        using var response = await OpenAsync(client, "/changes");

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task An_idle_stream_sends_keep_alive_comments_and_a_keyed_store_can_be_streamed()
    {
        await using var app = await StartAppAsync("/audit/changes", o =>
        {
            o.StoreKey = "audit";
            o.KeepAliveInterval = TimeSpan.FromMilliseconds(20);
        });
        var store = app.Services.GetRequiredKeyedService<DocumentStore>("audit");
        await SaveAsync(app.Services.GetRequiredService<DocumentStore>(), "entries", "entries/not-audit"); // the other store
        using var client = app.GetTestClient();

        using var response = await OpenAsync(client, "/audit/changes");
        using var events = new EventStreamReader(await response.Content.ReadAsStreamAsync());
        var idle = await events.NextAsync(); // nothing saved in the audit store: only comments come
        Assert.Equal("keep-alive", idle?.Comment);

        await SaveAsync(store, "entries", "entries/1");
        var change = await events.EventsAsync(1);
        Assert.Equal("entries/1", change[0].Json.GetProperty("id").GetString());
    }

    [Fact]
    public void A_keep_alive_interval_that_is_not_positive_is_refused_when_mapped()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseTestServer();
        using var app = builder.Build();

        Assert.Throws<ArgumentOutOfRangeException>(() => app.MapDocumentChanges(configure: o => o.KeepAliveInterval = TimeSpan.Zero));
    }

    /// <summary>A small app on a test server: a store, a keyed store "audit", problem details and one change stream.</summary>
    private async Task<WebApplication> StartAppAsync(string pattern, Action<DocumentChangesOptions> configure, IStartupFilter? filter = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseTestServer();
        builder.Services.AddVoronDocumentStore(o => o.Path = _directory.Combine("app"));
        builder.Services.AddKeyedVoronDocumentStore("audit", o => o.Path = _directory.Combine("audit"));
        builder.Services.AddVoronProblemDetails();
        if (filter != null)
        {
            builder.Services.AddSingleton(filter);
        }

        var app = builder.Build();
        app.UseExceptionHandler();
        app.MapDocumentChanges(pattern, configure);
        await app.StartAsync();
        return app;
    }

    private static async Task<HttpResponseMessage> OpenAsync(HttpClient client, string path, string? lastEventId = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue("text/event-stream"));
        if (lastEventId != null)
        {
            request.Headers.TryAddWithoutValidation("Last-Event-ID", lastEventId);
        }

        using var guard = new CancellationTokenSource(EventStreamReader.HangGuard);
        return await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, guard.Token);
    }

    private static async Task SaveAsync(DocumentStore store, string collection, params string[] ids)
    {
        foreach (var id in ids)
        {
            await using var session = store.OpenSession();
            session.StoreRaw(collection, id, """{"name":"n"}"""u8);
            await session.SaveChangesAsync();
        }
    }

    /// <summary>The next event, or null when the stream ended or broke (the server went away).</summary>
    private static async Task<ServerSentEvent?> NextOrEndAsync(EventStreamReader events)
    {
        try
        {
            while (await events.NextAsync() is { } next)
            {
                if (next.Comment == null)
                {
                    return next;
                }
            }

            return null;
        }
        catch (IOException)
        {
            return null;
        }
    }

    /// <summary>Counts the flushes of the answers to <paramref name="path"/> (the response body replaced by a counting stream).</summary>
    private sealed class FlushCountingFilter(string path) : IStartupFilter
    {
        private int _flushes;

        public int Flushes => Volatile.Read(ref _flushes);

        public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
        {
            app.Use(async (context, inner) =>
            {
                if (context.Request.Path == path)
                {
                    context.Response.Body = new CountingStream(context.Response.Body, () => Interlocked.Increment(ref _flushes));
                }

                await inner(context);
            });
            next(app);
        };
    }

    private sealed class CountingStream(Stream inner, Action flushed) : Stream
    {
        public override bool CanRead => false;
        public override bool CanSeek => false;
        public override bool CanWrite => true;
        public override long Length => throw new NotSupportedException();
        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }
        public override void Flush() => throw new NotSupportedException("the stream flushes asynchronously");

        public override async Task FlushAsync(CancellationToken cancellationToken)
        {
            flushed();
            await inner.FlushAsync(cancellationToken);
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException("the stream writes asynchronously");
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) => inner.WriteAsync(buffer, cancellationToken);
        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) => inner.WriteAsync(buffer, offset, count, cancellationToken);
    }

    /// <summary>Tells when a request to <paramref name="path"/> has left the pipeline (its endpoint returned).</summary>
    private sealed class AfterRequest(string path, TaskCompletionSource ended) : IStartupFilter
    {
        public Action<IApplicationBuilder> Configure(Action<IApplicationBuilder> next) => app =>
        {
            app.Use(async (context, inner) =>
            {
                try
                {
                    await inner(context);
                }
                finally
                {
                    if (context.Request.Path == path)
                    {
                        ended.TrySetResult();
                    }
                }
            });
            next(app);
        };
    }

    public void Dispose() => _directory.Dispose();
}
