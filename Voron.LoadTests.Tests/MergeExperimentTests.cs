using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Data;
using Voron.LoadTests.Measurement;

namespace Voron.LoadTests.Tests;

public sealed class MergeExperimentTests : IDisposable
{
    private static readonly OpenLoopSettings Tiny = new(TimeSpan.FromMilliseconds(100), 50, 4, 200, 1, 1, TimeSpan.FromMilliseconds(100), TimeSpan.FromMilliseconds(50));

    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Closed_loop_reports_every_mode_at_every_caller_count_and_key_pattern()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"));

        var report = await new MergeExperiment(TimeSpan.FromMilliseconds(40), callerCounts: [1, 4], loops: [MergeExperiment.ClosedLoopName]).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var rows = json.RootElement.GetProperty("rows").EnumerateArray().ToList();
        foreach (var pattern in KeyPattern.All)
        {
            foreach (var callers in new[] { 1, 4 })
            {
                foreach (var mode in MergeExperiment.ClosedModes)
                {
                    var row = Assert.Single(rows, r => r.GetProperty("mode").GetString() == mode && r.GetProperty("callers").GetInt32() == callers &&
                                                       r.GetProperty("keys").GetString() == pattern.Name);
                    Assert.Equal(MergeExperiment.ClosedLoopName, row.GetProperty("loop").GetString());
                    Assert.Equal(0, row.GetProperty("flushDelayMs").GetDouble());
                    Assert.True(row.GetProperty("writesPerSec").GetDouble() > 0, $"{mode} at {callers}");
                    Assert.True(row.GetProperty("p99Ms").GetDouble() > 0, $"{mode} at {callers}");
                    Assert.True(row.GetProperty("opsPerFlush").GetDouble() >= 1, $"{mode} at {callers}");
                    Assert.True(row.GetProperty("cpuUsPerOp").GetDouble() > 0, $"{mode} at {callers}");
                    Assert.True(row.GetProperty("allocBytesPerOp").GetDouble() >= 0, $"{mode} at {callers}");
                    if (mode == ConcurrentWriterModes.LmdbBatched)
                    {
                        Assert.Equal(1.0, row.GetProperty("cpuVsLmdbBatched").GetDouble());
                    }
                    var journal = row.GetProperty("journalMedianMs");
                    Assert.Equal(mode.StartsWith("voron", StringComparison.Ordinal), journal.ValueKind == JsonValueKind.Number);
                }
            }
        }

        Assert.All(rows.Where(r => r.GetProperty("mode").GetString() is ConcurrentWriterModes.Unmerged or ConcurrentWriterModes.SqliteNaive or ConcurrentWriterModes.LmdbNaive),
            r => Assert.Equal(1.0, r.GetProperty("opsPerFlush").GetDouble()));
        Assert.True(json.RootElement.GetProperty("fdatasyncMedianMs").GetDouble() > 0);
        Assert.Contains("## loop: closed", report.ToMarkdown(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Open_loop_on_a_simulated_disk_gives_each_row_its_mode_delay_offered_and_achieved_rates_and_p99()
    {
        using var output = new StringWriter();
        using var context = ExperimentContext.Create(output, quick: true, _directory.Combine("data"), disk: new SimulatedDisk(TimeSpan.FromMilliseconds(1)));

        var report = await new MergeExperiment(loops: [MergeExperiment.OpenLoopName], openSettings: Tiny).RunAsync(context);

        using var json = JsonDocument.Parse(report.ToJson());
        var root = json.RootElement;
        var rows = root.GetProperty("rows").EnumerateArray().ToList();
        Assert.All(rows, r =>
        {
            Assert.Equal(MergeExperiment.OpenLoopName, r.GetProperty("loop").GetString());
            Assert.Contains(r.GetProperty("mode").GetString(), MergeExperiment.OpenModes);
            Assert.Equal(1.0, r.GetProperty("flushDelayMs").GetDouble());
            Assert.True(r.GetProperty("offeredPerSec").GetDouble() > 0);
            Assert.True(r.GetProperty("writesPerSec").GetDouble() > 0);
            Assert.True(r.GetProperty("p99Ms").GetDouble() >= r.GetProperty("p50Ms").GetDouble());
        });
        foreach (var pattern in KeyPattern.All)
        {
            foreach (var mode in MergeExperiment.OpenModes)
            {
                Assert.Contains(rows, r => r.GetProperty("phase").GetString() == "sweep" && r.GetProperty("mode").GetString() == mode && r.GetProperty("keys").GetString() == pattern.Name);
                Assert.True(root.TryGetProperty($"saturationPerSec.{pattern.Name}.{mode}", out _), $"{pattern.Name} {mode}");
            }

            if (root.GetProperty($"saturationPerSec.{pattern.Name}.{ConcurrentWriterModes.Merged}").GetDouble() > 0)
            {
                foreach (var share in OpenLoopSettings.TargetShares)
                {
                    Assert.Contains(rows, r => r.GetProperty("phase").GetString() == "target" && r.GetProperty("mode").GetString() == ConcurrentWriterModes.MergedAsync &&
                                               r.GetProperty("shareOfMergedSaturation").GetDouble() == share && r.GetProperty("keys").GetString() == pattern.Name);
                }
            }
        }

        Assert.StartsWith("SIMULATED", root.GetProperty("simulatedDisk").GetString(), StringComparison.Ordinal);
        Assert.Contains(root.GetProperty("notes").EnumerateArray(), n => n.GetString()!.StartsWith("SIMULATED DISK", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(null, null)]
    [InlineData(" ", null)]
    [InlineData("8192", new[] { 8192 })]
    [InlineData("64, 256,1", new[] { 64, 256, 1 })]
    public void Caller_counts_from_the_environment_variable(string? text, int[]? expected) =>
        Assert.Equal(expected, MergeExperiment.ParseCallerCounts(text));

    [Theory]
    [InlineData("0")]
    [InlineData("-4")]
    [InlineData("64,,256")]
    [InlineData("many")]
    [InlineData("20000")]
    public void Bad_caller_counts_are_refused_with_the_variable_named(string text)
    {
        var error = Assert.Throws<ArgumentException>(() => MergeExperiment.ParseCallerCounts(text));
        Assert.Contains("VORON_MERGE_CALLERS", error.Message, StringComparison.Ordinal);
        Assert.Contains(text, error.Message, StringComparison.Ordinal);
    }

    public void Dispose() => _directory.Dispose();
}
