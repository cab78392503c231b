using Voron.LoadTests.Experiments;
using Voron.LoadTests.Load;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments.Http;

/// <summary>
/// samples/DocumentsApi under real HTTP load: Kestrel on 127.0.0.1 in this process, loaded from
/// this process too (<see cref="HttpScenarios"/>: an HttpClient per run, one connection per copy)
/// at 64 and 256 connections, for three endpoints — POST of new documents, GET by id (the stored
/// JSON streamed as stored), and the indexed query
/// (<c>GET /products?category=…&amp;maxPrice=…&amp;take=20</c>) — beside the same endpoints backed by
/// SQLite through Microsoft.Data.Sqlite (WAL, synchronous=FULL, one transaction per request). Both
/// backends are durable: a POST is answered after its commit is on disk. Runs are interleaved
/// (each endpoint and connection count: both backends, the first one alternating), and the GET
/// runs read the products the POST runs created. Every answer is checked: a non-2xx status or a
/// body that is not the answer is a wrong answer; a request not answered in time is a timeout,
/// reported as a figure.
/// </summary>
internal sealed class HttpExperiment : IExperiment
{
    internal const string Voron = "voron";
    internal const string Sqlite = "sqlite";
    internal const string Post = "post";
    internal const string Get = "get";
    internal const string Query = "query";
    internal static readonly int[] Connections = [64, 256];
    internal static readonly string[] Endpoints = [Post, Get, Query];

    private readonly TimeSpan? _duration;
    private readonly TimeSpan _requestTimeout;

    /// <param name="duration">How long each run lasts; default 15 s, 2 s with --quick.</param>
    /// <param name="requestTimeout">How long a request may wait for its answer before it counts as a timeout (HttpClient.Timeout); default 30 s, as wrk's --timeout was.</param>
    public HttpExperiment(TimeSpan? duration = null, TimeSpan? requestTimeout = null)
    {
        _duration = duration;
        _requestTimeout = requestTimeout ?? TimeSpan.FromSeconds(30);
    }

    public string Name => "http";

    public string Description => "samples/DocumentsApi under in-process HTTP load: POST, GET by id, indexed query at 64 and 256 connections, Voron vs SQLite (WAL, FULL)";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var report = context.NewReport(Name, "HTTP: the sample API under load, Voron beside SQLite");
        var duration = _duration ?? (context.Quick ? TimeSpan.FromSeconds(2) : TimeSpan.FromSeconds(15));
        report.AddFact("loadGenerator", $"in this process, sharing the machine's {Environment.ProcessorCount} cores with the server: " +
                                        "an HttpClient (SocketsHttpHandler, at most one connection per copy) per run, KeepConstant(copies: connections)");
        report.AddFact("secondsPerRun", duration.TotalSeconds);
        report.AddFact("requestTimeoutSeconds", _requestTimeout.TotalSeconds);
        report.AddFact("durability", "both durable: Voron acknowledges a save after the journal fdatasync covering it (merged with concurrent saves); SQLite WAL synchronous=FULL, one transaction per request, writers queue for its one write lock");

        var results = new List<(string Backend, string Endpoint, int Connections, ScenarioStats Stats, ProcessCost Cost)>();
        var created = new Dictionary<string, CreatedProducts> { [Voron] = new(), [Sqlite] = new() };
        await using var voron = await HttpServer.StartVoronAsync(context.NewDirectory("voron")).ConfigureAwait(false);
        await using var sqlite = await HttpServer.StartSqliteAsync(context.NewDirectory("sqlite")).ConfigureAwait(false);
        HttpServer[] servers = [voron, sqlite];

        if (!context.Quick)
        {
            foreach (var server in servers)
            {
                context.Progress($"{server.Backend,-7} warming up: POST for 3 s at 64 connections (not reported)");
                await LoadRunner.RunAsync(HttpScenarios.Create(server, Post, 64, TimeSpan.FromSeconds(3), _requestTimeout, created[server.Backend])).ConfigureAwait(false);
            }
        }

        var round = 0;
        foreach (var endpoint in Endpoints)
        {
            foreach (var connections in Connections)
            {
                foreach (var server in Rotation.For(servers, round))
                {
                    var cost = ProcessCost.Start(); // the server and the load generator together: one process
                    var stats = await context.RunScenarioAsync(HttpScenarios.Create(server, endpoint, connections, duration, _requestTimeout, created[server.Backend])).ConfigureAwait(false);
                    var spent = cost.Stop();
                    report.AddScenario(server.Backend, $"{endpoint}, closed {connections}", round, stats);
                    var (nonSuccess, wrongBodies, timeouts, socketErrors) = HttpScenarios.Failures(stats);
                    context.Progress($"{server.Backend,-7} {endpoint,-6} {connections,3} connections: {Answered(stats) / stats.Seconds,9:N0} requests/s, " +
                                     $"p50 {stats.Ok.Latency.P50Ms:F2} ms, p99 {stats.Ok.Latency.P99Ms:F2} ms, {spent.CpuMicrosecondsPer(Answered(stats)):F0} us CPU/request" +
                                     (stats.Fail.Count > 0 ? $", {nonSuccess} non-2xx, {wrongBodies} wrong bodies, {timeouts} timeouts, {socketErrors} socket errors" : ""));
                    results.Add((server.Backend, endpoint, connections, stats, spent));
                }

                round++;
            }
        }

        // Rows in a fixed order (endpoint, connections, Voron then SQLite) whichever backend ran first.
        foreach (var (backend, endpoint, connections, stats, spent) in results.OrderBy(r => Array.IndexOf(Endpoints, r.Endpoint)).ThenBy(r => r.Connections).ThenBy(r => r.Backend == Voron ? 0 : 1))
        {
            var peer = results.FirstOrDefault(r => r.Backend == Sqlite && r.Endpoint == endpoint && r.Connections == connections).Stats;
            var (nonSuccess, wrongBodies, timeouts, socketErrors) = HttpScenarios.Failures(stats);
            report.AddRow(
                ("backend", backend),
                ("endpoint", endpoint),
                ("connections", connections),
                ("requests", Answered(stats)),
                ("requestsPerSec", RequestsPerSecond(stats)),
                ("p50Ms", stats.Ok.Latency.P50Ms),
                ("p99Ms", stats.Ok.Latency.P99Ms),
                ("cpuUsPerRequest", spent.CpuMicrosecondsPer(Answered(stats))),
                ("allocBytesPerRequest", spent.AllocatedBytesPer(Answered(stats))),
                ("ok", stats.Ok.Count),
                ("non2xx", nonSuccess),
                ("wrongBodies", wrongBodies),
                ("timeouts", timeouts),
                ("socketErrors", socketErrors),
                ("errors", stats.Fail.Count),
                ("vsSqlite", backend == Voron && peer != null && RequestsPerSecond(peer) > 0 ? RequestsPerSecond(stats) / RequestsPerSecond(peer) : null),
                ("p99VsSqlite", backend == Voron && peer is { Ok.Latency.P99Ms: > 0 } ? stats.Ok.Latency.P99Ms / peer.Ok.Latency.P99Ms : null));
        }

        var post = results.FirstOrDefault(r => r.Backend == Voron && r.Endpoint == Post && r.Connections == 256).Stats;
        var sqlitePost = results.FirstOrDefault(r => r.Backend == Sqlite && r.Endpoint == Post && r.Connections == 256).Stats;
        if (post != null && sqlitePost != null && RequestsPerSecond(sqlitePost) > 0)
        {
            report.AddFact("post256VsSqlite", RequestsPerSecond(post) / RequestsPerSecond(sqlitePost));
            report.AddFact("post256TargetMet", RequestsPerSecond(post) >= 5 * RequestsPerSecond(sqlitePost) && post.Ok.Latency.P99Ms <= sqlitePost.Ok.Latency.P99Ms);
        }

        report.AddNote("Target: POST at 256 connections at least 5x the SQLite-backed endpoint, with p99 no worse (post256VsSqlite, post256TargetMet).");
        report.AddNote("The load is generated in this process (loadGenerator), on the same cores as the server: a closed loop, each connection sends its next request " +
                       "when the last one is answered. requests counts the answers (2xx or not) and requestsPerSec divides them by the run's seconds; " +
                       "p50Ms and p99Ms are the 2xx answers' latencies (HdrHistogram, 3 significant digits).");
        report.AddNote("cpuUsPerRequest and allocBytesPerRequest: the process's CPU time (Environment.CpuUsage, every thread) and managed allocations " +
                       "(GC.GetTotalAllocatedBytes) over the run, divided by requests. The server (Kestrel, the endpoints, the store, its merger and flusher) " +
                       "and the load generator (HttpClient, the answers' checks) share the process, so both are in these figures; they are not the server's " +
                       "alone. The generator's share is about the same for both backends (the same requests and answers), so the difference between the " +
                       "backends' rows is the servers'. SQLite's native allocations are not counted; its CPU is.");
        report.AddNote("Every answer is checked. Wrong answers: non2xx (every request is one that should succeed: GETs ask only for products the POSTs created) and " +
                       "wrongBodies (a POST's body is not the product its Location names, a GET's not the product asked for, a query's not products of the category asked for " +
                       "up to the price asked for). timeouts (no answer within requestTimeoutSeconds) and socketErrors are what a loaded machine did not serve; errors counts all four.");
        report.AddNote("The Voron server maps samples/DocumentsApi's endpoints (ProductEndpoints.MapProducts) with its store registration; the SQLite server " +
                       "answers the same routes with the same headers and bodies (Experiments/Http/SqliteProductEndpoints.cs). GET and query write the stored JSON as stored on both.");
        report.AddNote("fdatasyncMedianMs: one 4 KiB write+fdatasync on an idle disk, the cost of one unmerged durable commit; SQLite's POST pays about one per request, " +
                       "Voron's merged commits share one among the requests that wait together.");
        return report;
    }

    /// <summary>Requests that were answered, 2xx or not (timeouts and socket errors were not).</summary>
    private static long Answered(ScenarioStats stats)
    {
        var (nonSuccess, wrongBodies, _, _) = HttpScenarios.Failures(stats);
        return stats.Ok.Count + nonSuccess + wrongBodies;
    }

    private static double RequestsPerSecond(ScenarioStats stats) => stats.Seconds <= 0 ? 0 : Answered(stats) / stats.Seconds;
}
