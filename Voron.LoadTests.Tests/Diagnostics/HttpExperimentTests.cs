using Voron.Diagnostics.Experiments.Http;
using Voron.LoadTests.Load;

namespace Voron.LoadTests.Tests.Diagnostics;

/// <summary>
/// The http experiment loads both backends from this process (no external tool), so it always runs.
/// Regression: with wrk generating the load, this test asserted zero errors and failed on a busy
/// 2-core machine (55 errors in a 1-second run), because it could not tell a request the loaded
/// machine did not serve in time from a wrong answer. It now asserts behaviour only: every run was
/// answered, no answer was wrong (non-2xx or a body that is not the answer), and timeouts are
/// reported as figures, whatever their number.
/// </summary>
public sealed class HttpExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_answers_every_backend_endpoint_and_connection_count_with_no_wrong_answer()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"), _directory.Combine("reports"));

        var report = await new HttpExperiment(duration: TimeSpan.FromSeconds(1)).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(2 * HttpExperiment.Endpoints.Length * HttpExperiment.Connections.Length, rows.Count);
        Assert.Equal(rows.Count, report.Scenarios.Count);
        foreach (var row in rows)
        {
            Assert.Contains(row.GetProperty("backend").GetString(), new[] { HttpExperiment.Voron, HttpExperiment.Sqlite });
            Assert.Contains(row.GetProperty("endpoint").GetString(), HttpExperiment.Endpoints);
            Assert.True(row.GetProperty("ok").GetInt64() > 0, row.ToString());
            Assert.True(row.GetProperty("requestsPerSec").GetDouble() > 0, row.ToString());
            Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, row.ToString());
            Assert.True(row.GetProperty("cpuUsPerRequest").GetDouble() > 0, row.ToString());
            Assert.True(row.GetProperty("allocBytesPerRequest").GetDouble() > 0, row.ToString());
            Assert.Equal(0, row.GetProperty("non2xx").GetInt64()); // GETs ask only for products the POSTs created
            Assert.Equal(0, row.GetProperty("wrongBodies").GetInt64());
            Assert.True(row.GetProperty("timeouts").GetInt64() >= 0, row.ToString()); // a figure, not a verdict
            Assert.Equal(row.GetProperty("timeouts").GetInt64() + row.GetProperty("socketErrors").GetInt64(), row.GetProperty("errors").GetInt64());
        }

        Assert.Contains("sharing the machine's", json.RootElement.GetProperty("loadGenerator").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_get_of_a_product_that_does_not_exist_counts_as_a_wrong_answer_under_its_status_code()
    {
        await using var server = await HttpServer.StartVoronAsync(Directory.CreateDirectory(_directory.Combine("voron")).FullName);
        var created = new CreatedProducts();
        created.Add("999999"); // never created: the server answers 404

        var stats = await LoadRunner.RunAsync(HttpScenarios.Create(server, HttpExperiment.Get, connections: 2, TimeSpan.FromMilliseconds(200), TimeSpan.FromSeconds(30), created));

        Assert.True(stats.AllRequestCount > 0);
        Assert.Equal(0, stats.AllOkCount);
        var status = Assert.Single(stats.StatusCodes);
        Assert.Equal("404", status.StatusCode);
        Assert.True(status.IsError);
        Assert.Equal(stats.AllRequestCount, stats.FailuresExcept(HttpScenarios.TimedOut));
        Assert.Equal((stats.AllRequestCount, 0L, 0L, 0L), HttpScenarios.Failures(stats));
    }

    public void Dispose() => _directory.Dispose();
}
