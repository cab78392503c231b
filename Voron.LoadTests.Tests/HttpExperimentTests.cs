using System.Text.Json;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Experiments.Http;

namespace Voron.LoadTests.Tests;

public sealed class HttpExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_every_backend_endpoint_and_connection_count_or_says_how_to_install_wrk()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"), _directory.Combine("reports"));

        var report = await new HttpExperiment(duration: TimeSpan.FromSeconds(1)).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        if (Wrk.Version() == null)
        {
            Assert.Empty(rows);
            Assert.Contains("apt-get install wrk", report.ToMarkdown(), StringComparison.Ordinal);
            return;
        }

        Assert.Equal(2 * HttpExperiment.Endpoints.Length * HttpExperiment.Connections.Length, rows.Count);
        foreach (var row in rows)
        {
            Assert.Contains(row.GetProperty("backend").GetString(), new[] { HttpExperiment.Voron, HttpExperiment.Sqlite });
            Assert.Contains(row.GetProperty("endpoint").GetString(), HttpExperiment.Endpoints);
            Assert.True(row.GetProperty("requestsPerSec").GetDouble() > 0, row.ToString());
            Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, row.ToString());
            Assert.Equal(0, row.GetProperty("errors").GetInt64()); // every request answered 2xx: GETs hit ids the POSTs created
        }

        Assert.IsType<HttpExperiment>(ExperimentCatalog.Find("http"));
    }

    public void Dispose() => _directory.Dispose();
}
