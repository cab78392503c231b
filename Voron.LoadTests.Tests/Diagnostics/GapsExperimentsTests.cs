using Voron.Diagnostics;
using Voron.Diagnostics.Experiments;

namespace Voron.LoadTests.Tests.Diagnostics;

/// <summary>Two diagnostics of the write path: <c>anatomy</c> (the journal read back) and <c>stalls</c> (the open-loop trace).</summary>
public sealed class GapsExperimentsTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Anatomy_and_stalls_are_registered_in_the_catalog()
    {
        Assert.IsType<AnatomyExperiment>(DiagnosticsCatalog.Find("anatomy"));
        Assert.IsType<StallsExperiment>(DiagnosticsCatalog.Find("stalls"));
    }

    [Fact]
    public async Task Anatomy_reads_back_one_record_per_transaction_and_every_operation()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new AnatomyExperiment(items: 1_000, operations: 512).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var workload in new[] { "seq-insert", "random-insert" })
        {
            var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload);
            Assert.Equal(10, row.GetProperty("records").GetInt64()); // 1,000 items, 100 per transaction
            Assert.Equal(1_000, row.GetProperty("operations").GetInt64());
            Assert.True(row.GetProperty("journalBytesPerOp").GetDouble() > 0, workload);
        }

        var sequential = rows.Single(r => r.GetProperty("workload").GetString() == "seq-insert");
        var random = rows.Single(r => r.GetProperty("workload").GetString() == "random-insert");
        Assert.True(random.GetProperty("diffEntries").GetInt64() > sequential.GetProperty("diffEntries").GetInt64()); // random keys touch more leaves

        foreach (var workload in new[] { "merge-sequential", "merge-random" })
        {
            var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload);
            Assert.Equal(512, row.GetProperty("operations").GetInt64());
            Assert.True(row.GetProperty("records").GetInt64() is > 0 and <= 512 + 1, workload); // merged: at most one record per operation (and the tree's creation)
        }
    }

    [Fact]
    public async Task Stalls_counts_a_journal_write_for_the_writes_it_started()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new StallsExperiment(rate: 100, seconds: 1).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var root = json.RootElement;
        var writes = root.GetProperty("journalWrites").GetInt64();
        Assert.InRange(writes, 2, 101); // the tree's creation and at least one batch; never more records than writes
        Assert.True(root.GetProperty("maxMs").GetDouble() >= root.GetProperty("p50Ms").GetDouble());
    }

    public void Dispose() => _directory.Dispose();
}
