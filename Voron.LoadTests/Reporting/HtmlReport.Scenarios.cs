using System.Xml.Linq;

namespace Voron.LoadTests.Reporting;

/// <summary>The scenario runs' part of the page: charts by kind of load, then every step's figures.</summary>
internal static partial class HtmlReport
{
    private static readonly string[] Percentiles = ["p50", "p95", "p99"];

    /// <summary>
    /// <list type="number">
    /// <item>Each closed load (every phase <see cref="KeepConstant"/>): throughput and p99 over time,
    /// a line per engine, from the engine's first round (round 1) — the timelines of several rounds
    /// do not average into one run.</item>
    /// <item>Each closed load, and each open load that two or more engines ran (a sweep's rates,
    /// which differ per engine, are in the next charts instead): p50, p95 and p99 of every step, a
    /// bar per engine, each the median over the rounds.</item>
    /// <item>Runs at one fixed open rate (every phase <see cref="Inject"/> at the same rate):
    /// achieved ok RPS and p99 against the offered rate, a line per engine (the median over runs at
    /// a rate), with the offered rate itself and the p99 limit (<see cref="SaturationSweep.P99LimitMs"/>) drawn.</item>
    /// <item>A table of every run and step.</item>
    /// </list>
    /// </summary>
    private static XElement ScenarioSection(IReadOnlyList<ScenarioRun> runs, Ids ids)
    {
        var colors = Palette.Assign(runs.Select(r => r.Engine));
        var section = E("section", new XAttribute("id", ids.Next("scenarios")), E("h2", "Scenario runs"));
        section.Add(E("p", "Engines: ", colors.Select(c => E("span", E("span", new XAttribute("class", "swatch"), new XAttribute("style", "background:" + c.Value)), c.Key + " "))));
        var loads = runs.Select(r => r.Load).Distinct(StringComparer.Ordinal).ToList();
        foreach (var load in loads)
        {
            var ofLoad = runs.Where(r => r.Load == load).ToList();
            var closed = ofLoad.All(r => IsClosed(r.Stats));
            if (closed)
            {
                section.Add(Timelines(load, ofLoad, colors, ids));
            }

            if (closed || ofLoad.Select(r => r.Engine).Distinct(StringComparer.Ordinal).Count() > 1)
            {
                section.Add(StepLatencies(load, ofLoad, colors, ids));
            }
        }

        var open = runs.Select(r => (Run: r, Rate: OfferedRate(r.Stats))).Where(x => x.Rate != null).ToList();
        if (open.Count > 0)
        {
            section.Add(OfferedLoad(open.ConvertAll(x => (x.Run, x.Rate!.Value)), colors, ids));
        }

        section.Add(StepTable(runs, ids));
        return section;
    }

    private static bool IsClosed(ScenarioStats stats)
    {
        var phases = stats.Simulations.Where(s => s is not Pause).ToList();
        return phases.Count > 0 && phases.All(s => s is KeepConstant);
    }

    /// <summary>The rate of a run whose phases (pauses aside) are all <see cref="Inject"/> at one rate; null otherwise.</summary>
    private static double? OfferedRate(ScenarioStats stats)
    {
        var rates = stats.Simulations.Where(s => s is not Pause).Select(s => s is Inject inject ? inject.PerSecond : double.NaN).Distinct().ToList();
        return rates.Count == 1 && double.IsFinite(rates[0]) ? rates[0] : null;
    }

    private static IEnumerable<XElement> Timelines(string load, List<ScenarioRun> runs, Dictionary<string, string> colors, Ids ids)
    {
        var first = runs.GroupBy(r => r.Engine).Select(g => g.OrderBy(r => r.Round).First()).ToList();
        var rounds = string.Join(", ", first.Select(r => r.Round).Distinct().Select(r => r.ToString(CultureInfo.InvariantCulture)));
        var throughput = first.ConvertAll(r => new SvgChart.Line(r.Engine, colors[r.Engine], r.Stats.Timeline.Select(p => (p.EndSeconds, p.Rps)).ToList()));
        var p99 = first.ConvertAll(r => new SvgChart.Line(r.Engine, colors[r.Engine], r.Stats.Timeline.Select(p => (p.EndSeconds, p.P99Ms)).ToList()));
        var rpsId = ids.Next($"{load}-throughput");
        yield return Figure(rpsId,
            SvgChart.LineChart(rpsId, $"Throughput over time, {load}", "seconds", "ok requests per second", throughput),
            $"Throughput over time under {load}: ok requests per second in each interval, a line per engine, from round {rounds}'s run (one run, not an average of rounds).");
        var p99Id = ids.Next($"{load}-p99");
        yield return Figure(p99Id,
            SvgChart.LineChart(p99Id, $"p99 latency over time, {load}", "seconds", "p99 (ms)", p99, new SvgChart.LineOptions { LogY = Spread(p99.SelectMany(l => l.Points).Select(p => p.Y)) >= 100 }),
            $"99th percentile latency of the ok requests in each interval under {load}, a line per engine, from round {rounds}'s run.");
    }

    private static XElement StepLatencies(string load, List<ScenarioRun> runs, Dictionary<string, string> colors, Ids ids)
    {
        var steps = runs.SelectMany(r => r.Stats.Steps.Select(s => s.StepName)).Distinct(StringComparer.Ordinal).ToList();
        var categories = steps.Count == 0
            ? Percentiles.Select(p => $"(scenario) {p}").ToList()
            : steps.SelectMany(s => Percentiles.Select(p => $"{s} {p}")).ToList();
        var engines = runs.Select(r => r.Engine).Distinct(StringComparer.Ordinal).ToList();
        var bars = engines.ConvertAll(engine =>
        {
            var ofEngine = runs.Where(r => r.Engine == engine).ToList();
            var values = new List<double>();
            foreach (var step in steps.Count == 0 ? [(string?)null] : steps.Select(s => (string?)s))
            {
                var latencies = ofEngine.Select(r => step == null ? r.Stats.Ok.Latency : r.Stats.Steps.FirstOrDefault(s => s.StepName == step)?.Ok.Latency).OfType<LatencyStats>().ToList();
                values.Add(Median(latencies.Select(l => l.P50Ms)));
                values.Add(Median(latencies.Select(l => l.P95Ms)));
                values.Add(Median(latencies.Select(l => l.P99Ms)));
            }

            return new SvgChart.Bars(engine, colors[engine], values);
        });
        var id = ids.Next($"{load}-steps");
        return Figure(id, SvgChart.BarChart(id, $"Latency of each step, {load}", "ms", categories, bars),
            $"p50, p95 and p99 latency of each step's ok requests under {load}, a bar per engine; each bar is the median over the engine's rounds.");
    }

    private static IEnumerable<XElement> OfferedLoad(List<(ScenarioRun Run, double Rate)> open, Dictionary<string, string> colors, Ids ids)
    {
        var engines = open.Select(x => x.Run.Engine).Distinct(StringComparer.Ordinal).ToList();
        List<(double, double)> Points(string engine, Func<ScenarioStats, double> value) =>
            open.Where(x => x.Run.Engine == engine).GroupBy(x => x.Rate).OrderBy(g => g.Key).Select(g => (g.Key, Median(g.Select(x => value(x.Run.Stats))))).ToList();
        var rates = open.Select(x => x.Rate).Distinct().Order().ToList();
        var logX = Spread(rates) >= 20;
        List<SvgChart.Line> throughput = [new SvgChart.Line("offered", "#999999", rates.ConvertAll(r => (r, r)), Dashed: true)]; // first: drawn under the engines
        throughput.AddRange(engines.Select(e => new SvgChart.Line(e, colors[e], Points(e, s => s.Ok.Rps))));
        var p99 = engines.ConvertAll(e => new SvgChart.Line(e, colors[e], Points(e, s => s.Ok.Latency.P99Ms)));
        var logY = Spread(p99.SelectMany(l => l.Points).Select(p => p.Y).Append(SaturationSweep.P99LimitMs)) >= 100;
        var rpsId = ids.Next("offered-throughput");
        yield return Figure(rpsId,
            SvgChart.LineChart(rpsId, "Throughput against offered load", "offered requests per second", "ok requests per second", throughput,
                new SvgChart.LineOptions { LogX = logX, LogY = logX, Dots = true }),
            "Ok requests per second each engine completed at each offered (scheduled) rate of its open-load runs, the median over runs at a rate; the dashed grey line is the offered rate: an engine that keeps up is on it.");
        var p99Id = ids.Next("offered-p99");
        var limit = SaturationSweep.P99LimitMs.ToString(CultureInfo.InvariantCulture);
        yield return Figure(p99Id,
            SvgChart.LineChart(p99Id, "p99 latency against offered load", "offered requests per second", "p99 (ms)", p99,
                new SvgChart.LineOptions { LogX = logX, LogY = logY, Dots = true, Limits = [new SvgChart.Marker(SaturationSweep.P99LimitMs, $"p99 limit {limit} ms")] }),
            $"99th percentile latency at each offered rate, measured from each request's scheduled start (no coordinated omission); the dashed line is the {limit} ms limit a saturation rate must keep.");
    }

    private static XElement StepTable(IReadOnlyList<ScenarioRun> runs, Ids ids)
    {
        string[] columns = ["engine", "load", "round", "step", "requests", "ok", "fail", "RPS", "min ms", "mean ms", "p50 ms", "p75 ms", "p95 ms", "p99 ms", "max ms", "bytes"];
        var rows = new List<object?[]>();
        foreach (var run in runs)
        {
            // The scenario's own row when its steps are not one: with one step the two are the same figures.
            if (run.Stats.Steps.Count != 1)
            {
                rows.Add(StepRow(run, ScenarioCsv.AllSteps, run.Stats.Ok, run.Stats.Fail));
            }

            rows.AddRange(run.Stats.Steps.Select(s => StepRow(run, s.StepName, s.Ok, s.Fail)));
        }

        return Table(ids.Next("steps-table"), "Every run and step: ok requests' RPS and latency (ms)", columns, rows);
    }

    private static object?[] StepRow(ScenarioRun run, string step, MeasurementStats ok, MeasurementStats fail)
    {
        var l = ok.Latency;
        return [run.Engine, run.Load, run.Round, step, ok.Count + fail.Count, ok.Count, fail.Count, ok.Rps,
            Finite(l.MinMs), Finite(l.MeanMs), Finite(l.P50Ms), Finite(l.P75Ms), Finite(l.P95Ms), Finite(l.P99Ms), Finite(l.MaxMs), ok.Bytes + fail.Bytes];
    }

    private static double? Finite(double value) => double.IsFinite(value) ? value : null;

    private static XElement Figure(string id, string svg, string caption) =>
        E("figure", new XAttribute("id", id), XElement.Parse(svg), E("figcaption", caption));

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Where(double.IsFinite).Order().ToList();
        return sorted.Count == 0 ? double.NaN
            : sorted.Count % 2 == 1 ? sorted[sorted.Count / 2]
            : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
    }

    /// <summary>Largest over smallest positive value (1 when there are none): when it is large, a log axis reads better.</summary>
    private static double Spread(IEnumerable<double> values)
    {
        var positive = values.Where(v => double.IsFinite(v) && v > 0).ToList();
        return positive.Count == 0 ? 1 : positive.Max() / positive.Min();
    }
}
