using Voron.Diagnostics.Experiments;

namespace Voron.LoadTests.Tests.Diagnostics;

public sealed class JournalExperimentTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Run_reports_every_workload_in_all_four_modes_with_every_byte_counted_and_diffs_shrink_updates()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new JournalExperiment(documents: 400).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        Assert.Equal(JournalExperiment.Workloads.Length * JournalExperiment.Modes.Length, rows.Count);
        foreach (var workload in JournalExperiment.Workloads)
        {
            foreach (var (mode, _, _) in JournalExperiment.Modes)
            {
                var row = Assert.Single(rows, r => r.GetProperty("workload").GetString() == workload && r.GetProperty("mode").GetString() == mode);
                Assert.True(row.GetProperty("journalBytesPerOp").GetDouble() > 0);
                Assert.True(row.GetProperty("writesPerSec").GetDouble() > 0);
                // Every byte counted: the journal files take the records and the zeros ahead of them; all files take more again.
                Assert.True(row.GetProperty("journalFileBytesPerOp").GetDouble() >= row.GetProperty("journalBytesPerOp").GetDouble(), $"{workload} {mode}");
                Assert.True(row.GetProperty("allBytesPerOp").GetDouble() >= row.GetProperty("journalFileBytesPerOp").GetDouble() + row.GetProperty("dataFileBytesPerOp").GetDouble(), $"{workload} {mode}");
                Assert.True(row.GetProperty("dataFileBytesPerOp").GetDouble() > 0, $"{workload} {mode}");
            }
        }

        double Bytes(string workload, string mode) => rows.Single(r => r.GetProperty("workload").GetString() == workload && r.GetProperty("mode").GetString() == mode)
            .GetProperty("journalBytesPerOp").GetDouble();
        Assert.True(Bytes(JournalExperiment.Update, "diffs") < Bytes(JournalExperiment.Update, "full-pages"), "diffs journal fewer bytes than full pages for updates");
        Assert.True(Bytes(JournalExperiment.InsertRandom, "diffs+lz4") < Bytes(JournalExperiment.InsertRandom, "full-pages"), "diffs+LZ4 journal fewer bytes than full pages for inserts");
    }

    public void Dispose() => _directory.Dispose();
}
