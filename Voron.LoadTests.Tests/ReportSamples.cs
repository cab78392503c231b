using Voron.LoadTests.Load;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

/// <summary>
/// A report with made-up scenario runs for the HTML and CSV tests: two engines (one named
/// <c>a&lt;b&amp;c</c>, to be escaped), two steps, closed loads of 1 and 16 copies in two rounds,
/// and an open sweep whose rates differ per engine except 100/s, which both ran.
/// </summary>
internal static class ReportSamples
{
    public const string Voron = "voron-documents";
    public const string Odd = "a<b&c";
    public static readonly string[] Steps = ["create-order", "load-order"];

    public static Report Compare()
    {
        var report = new Report("compare", "Two paths <compared> & more");
        report.AddFact("durability.voron-documents", "fdatasync per commit");
        report.AddFact("durability." + Odd, "synchronous=FULL");
        report.AddFact("fdatasyncMedianMs4k", 0.42);
        report.AddNote("Quick mode: figures are for the report's shape.");
        report.GroupMarkdownBy("load");
        foreach (var engine in new[] { Voron, Odd })
        {
            foreach (var copies in new[] { 1, 16 })
            {
                var rps = engine == Voron ? 5000.0 * copies : 300.0 * copies;
                report.AddRow(("load", $"closed {copies}"), ("engine", engine), ("opsPerSec", rps), ("vsSqlite", engine == Voron ? 16.6 : (object?)null));
                for (var round = 1; round <= 2; round++)
                {
                    report.AddScenario(engine, $"closed {copies}", round, Run(Simulation.KeepConstant(copies, TimeSpan.FromSeconds(3)), rps * round, 0.1 * copies));
                }
            }

            var rates = engine == Voron ? new[] { 100, 400, 1600 } : new[] { 100, 150, 225 };
            foreach (var rate in rates)
            {
                var achieved = Math.Min(rate, engine == Voron ? 1600 : 180);
                report.AddScenario(engine, $"open {rate:N0}/s", 1, Run(Simulation.Inject(rate, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2)), achieved, rate > achieved ? 250 : 2));
            }
        }

        return report;
    }

    /// <summary>A run at <paramref name="rps"/> with p99 <paramref name="p99"/> ms, each step at half of both, a three-point timeline.</summary>
    public static ScenarioStats Run(LoadSimulation simulation, double rps, double p99)
    {
        var count = (long)(rps * 3);
        MeasurementStats Ok(double rate, double p) => new(count, rate, new LatencyStats(p / 10, p / 3, p * 2, p / 4, p / 4, p / 2, p * 0.8, p), count * 100);
        var fail = new MeasurementStats(1, 0.3, LatencyStats.Empty, 0);
        var steps = Steps.Select(s => new StepStats(s, Ok(rps, p99 / 2), fail, [])).ToList();
        TimelinePoint[] timeline = [.. Enumerable.Range(1, 3).Select(i => new TimelinePoint(i, count / 3, 0, rps * (0.9 + (0.05 * i)), p99 / 4, p99 * (1 + (0.1 * i)), 1, 0))];
        return new ScenarioStats("orders", [simulation], 3, 0.1, 0, Ok(rps, p99), fail, steps, [new StatusCodeStats("timeout", true, 1, "slow")], timeline);
    }
}
