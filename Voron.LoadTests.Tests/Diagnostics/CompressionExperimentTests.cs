using Voron.Diagnostics.Experiments;
using Voron.Diagnostics.Experiments.Compression;

namespace Voron.LoadTests.Tests.Diagnostics;

public sealed class CompressionExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_every_compressor_on_every_workload_with_payloads()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new CompressionExperiment(documents: 100).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        var workloads = rows.Select(r => r.GetProperty("workload").GetString()).Distinct().ToList();
        Assert.Contains("journal-insert-diffs", workloads);
        Assert.Contains("merge-16", workloads);
        Assert.Contains("bulk-json", workloads);
        Assert.Equal(workloads.Count * Lz4Compressor.All.Count, rows.Count);
        Assert.All(rows, r => Assert.True(r.GetProperty("compressMBps").GetDouble() > 0));
        Assert.All(rows, r => Assert.True(r.GetProperty("decompressMBps").GetDouble() > 0));

        double Ratio(string workload) => rows.First(r => r.GetProperty("workload").GetString() == workload).GetProperty("ratio").GetDouble();
        Assert.True(Ratio("journal-insert-diffs") > 1.4, "realistic JSON compresses (about 1.8x with LZ4 fast: varied names, words, ids)");
        Assert.True(Ratio("merge-16") < 1.25, "random values barely do");
    }

    [Fact]
    public void Capture_keeps_only_payloads_the_journal_would_compress()
    {
        var sets = PayloadSet.Capture(documents: 50, batches: 2, bulkTransactions: 1);

        Assert.All(sets.SelectMany(s => s.Payloads), p => Assert.True(p.Length >= Voron.Journal.JournalRecord.CompressionThreshold));
        Assert.Single(sets, s => s.Name == "bulk-kv").Payloads.ToList().ForEach(p => Assert.True(p.Length > 1_000_000, $"{p.Length}-byte bulk payload"));
    }

    public void Dispose() => _directory.Dispose();
}
