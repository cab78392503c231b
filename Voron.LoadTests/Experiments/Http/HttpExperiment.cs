using System.Globalization;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments.Http;

/// <summary>
/// samples/DocumentsApi under real HTTP load: Kestrel on 127.0.0.1 in this process, loaded by wrk
/// (a separate process, Debian's package) at 64 and 256 connections, for three endpoints — POST of
/// new documents, GET by id (the stored JSON streamed as stored), and the indexed query
/// (<c>GET /products?category=…&amp;maxPrice=…&amp;take=20</c>) — beside the same endpoints backed by
/// SQLite through Microsoft.Data.Sqlite (WAL, synchronous=FULL, one transaction per request). Both
/// backends are durable: a POST is answered after its commit is on disk. Runs are interleaved
/// (each endpoint and connection count: Voron, then SQLite), and the GET and query runs read the
/// documents the POST runs created. Without wrk the experiment skips, saying how to install it.
/// </summary>
internal sealed class HttpExperiment : IExperiment
{
    internal const string Voron = "voron";
    internal const string Sqlite = "sqlite";
    internal static readonly int[] Connections = [64, 256];
    internal static readonly string[] Endpoints = ["post", "get", "query"];
    private const int Categories = 16;

    private readonly TimeSpan? _duration;

    /// <param name="duration">How long each run lasts; default 15 s, 2 s with --quick.</param>
    public HttpExperiment(TimeSpan? duration = null) => _duration = duration;

    public string Name => "http";

    public string Description => "samples/DocumentsApi under wrk: POST, GET by id, indexed query at 64 and 256 connections, Voron vs SQLite (WAL, FULL)";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var report = context.NewReport(Name, "HTTP: the sample API under wrk, Voron beside SQLite");
        var version = Wrk.Version();
        if (version == null)
        {
            context.Progress(Wrk.InstallNote);
            report.AddNote(Wrk.InstallNote);
            return report;
        }

        var duration = _duration ?? (context.Quick ? TimeSpan.FromSeconds(2) : TimeSpan.FromSeconds(15));
        report.AddFact("wrk", version);
        report.AddFact("secondsPerRun", duration.TotalSeconds);
        report.AddFact("wrkThreads", 2);
        DiskBaseline.AddTo(report, context);
        report.AddFact("durability", "both durable: Voron acknowledges a save after the journal fdatasync covering it (merged with concurrent saves); SQLite WAL synchronous=FULL, one transaction per request, writers queue for its one write lock");

        var results = new List<(string Backend, string Endpoint, int Connections, WrkResult Result)>();
        var created = new Dictionary<string, long> { [Voron] = 0, [Sqlite] = 0 };
        await using var voron = await HttpServer.StartVoronAsync(context.NewDirectory("voron")).ConfigureAwait(false);
        await using var sqlite = await HttpServer.StartSqliteAsync(context.NewDirectory("sqlite")).ConfigureAwait(false);
        HttpServer[] servers = [voron, sqlite];

        if (!context.Quick)
        {
            foreach (var server in servers)
            {
                context.Progress($"{server.Backend,-7} warming up: POST for 3 s at 64 connections (not reported)");
                created[server.Backend] += (await Wrk.RunAsync(server.Address, PostScript(), 64, TimeSpan.FromSeconds(3), context.DataDirectory).ConfigureAwait(false)).Requests;
            }
        }

        foreach (var endpoint in Endpoints)
        {
            foreach (var connections in Connections)
            {
                foreach (var server in servers)
                {
                    var script = endpoint switch
                    {
                        "post" => PostScript(),
                        "get" => GetScript(created[server.Backend]),
                        _ => QueryScript(),
                    };
                    var result = await Wrk.RunAsync(server.Address, script, connections, duration, context.DataDirectory).ConfigureAwait(false);
                    if (endpoint == "post")
                    {
                        created[server.Backend] += result.Requests - result.BadStatus;
                    }

                    context.Progress($"{server.Backend,-7} {endpoint,-6} {connections,3} connections: {result.RequestsPerSecond,9:N0} requests/s, " +
                                     $"p50 {result.P50Ms:F2} ms, p99 {result.P99Ms:F2} ms{(result.BadStatus + result.SocketErrors > 0 ? $", {result.BadStatus} bad status, {result.SocketErrors} socket errors" : "")}");
                    results.Add((server.Backend, endpoint, connections, result));
                }
            }
        }

        foreach (var (backend, endpoint, connections, result) in results)
        {
            var peer = results.FirstOrDefault(r => r.Backend == Sqlite && r.Endpoint == endpoint && r.Connections == connections).Result;
            report.AddRow(
                ("backend", backend),
                ("endpoint", endpoint),
                ("connections", connections),
                ("requests", result.Requests),
                ("requestsPerSec", result.RequestsPerSecond),
                ("p50Ms", result.P50Ms),
                ("p99Ms", result.P99Ms),
                ("errors", result.BadStatus + result.SocketErrors),
                ("vsSqlite", backend == Voron && peer is { RequestsPerSecond: > 0 } ? result.RequestsPerSecond / peer.RequestsPerSecond : null),
                ("p99VsSqlite", backend == Voron && peer is { P99Ms: > 0 } ? result.P99Ms / peer.P99Ms : null));
        }

        var post = results.FirstOrDefault(r => r.Backend == Voron && r.Endpoint == "post" && r.Connections == 256).Result;
        var sqlitePost = results.FirstOrDefault(r => r.Backend == Sqlite && r.Endpoint == "post" && r.Connections == 256).Result;
        if (post != null && sqlitePost != null && sqlitePost.RequestsPerSecond > 0)
        {
            report.AddFact("post256VsSqlite", post.RequestsPerSecond / sqlitePost.RequestsPerSecond);
            report.AddFact("post256TargetMet", post.RequestsPerSecond >= 5 * sqlitePost.RequestsPerSecond && post.P99Ms <= sqlitePost.P99Ms);
        }

        report.AddNote("Target: POST at 256 connections at least 5x the SQLite-backed endpoint, with p99 no worse (post256VsSqlite, post256TargetMet).");
        report.AddNote("wrk is a closed loop: each connection sends its next request when the last one is answered. Latencies are wrk's own (p50Ms, p99Ms); " +
                       "requestsPerSec counts every response, errors the non-2xx ones and socket errors. The server and wrk share the machine's cores.");
        report.AddNote("The Voron server maps samples/DocumentsApi's endpoints (ProductEndpoints.MapProducts) with its store registration; the SQLite server " +
                       "answers the same routes with the same headers and bodies (Experiments/Http/SqliteProductEndpoints.cs). GET and query write the stored JSON as stored on both.");
        report.AddNote("fdatasyncMedianMs: one 4 KiB write+fdatasync on an idle disk, the cost of one unmerged durable commit; SQLite's POST pays about one per request, " +
                       "Voron's merged commits share one among the requests that wait together.");
        return report;
    }

    private static string PostScript() => $$"""
        local counter = 0
        request = function()
          counter = counter + 1
          local price = math.random(1, 1000)
          local body = string.format('{"name":"product %d","category":"c%d","price":%d}', counter, math.random(0, {{Categories - 1}}), price)
          return wrk.format("POST", "/products", { ["Content-Type"] = "application/json" }, body)
        end
        """;

    private static string GetScript(long documents) => string.Create(CultureInfo.InvariantCulture, $$"""
        request = function()
          return wrk.format("GET", "/products/" .. math.random(1, {{Math.Max(1, documents)}}))
        end
        """);

    private static string QueryScript() => $$"""
        request = function()
          return wrk.format("GET", string.format("/products?category=c%d&maxPrice=%d&take=20", math.random(0, {{Categories - 1}}), math.random(50, 1000)))
        end
        """;
}
