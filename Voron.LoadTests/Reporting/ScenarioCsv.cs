using System.Text;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// A CSV file per engine and load, as NBomber writes one per scenario:
/// <c>reports/&lt;experiment&gt;/&lt;engine&gt;-&lt;load&gt;.csv</c> (names made file-name-safe by
/// <see cref="SvgChart.Slug"/>; a clash gets "-2", "-3"). One row per round and step, after the
/// round's own row (step <c>all</c>: the whole invocation, every step in it):
/// <code>
/// round,step,requests,ok,fail,rps,min,mean,p50,p75,p95,p99,max,stddev,bytes
/// </code>
/// <c>requests</c> = ok + fail; <c>rps</c> is ok requests per second of the measured span (settle
/// included); the latencies are the ok requests' in milliseconds (empty when there were none);
/// <c>bytes</c> is what ok and failed responses said they moved. Invariant culture: '.' decimals,
/// no thousands separators.
/// </summary>
internal static class ScenarioCsv
{
    public const string Header = "round,step,requests,ok,fail,rps,min,mean,p50,p75,p95,p99,max,stddev,bytes";

    /// <summary>The scenario's own row's step name.</summary>
    public const string AllSteps = "all";

    /// <summary>
    /// Writes a file per (engine, load) of <paramref name="runs"/> into <paramref name="directory"/>
    /// (created), removing the CSV files an earlier run left there; returns the paths in order of first run.
    /// </summary>
    public static IReadOnlyList<string> WriteAll(string directory, IReadOnlyList<ScenarioRun> runs)
    {
        Directory.CreateDirectory(directory);
        foreach (var stale in Directory.EnumerateFiles(directory, "*.csv"))
        {
            File.Delete(stale);
        }

        var paths = new List<string>();
        var names = new HashSet<string>(StringComparer.Ordinal);
        foreach (var group in runs.GroupBy(r => (r.Engine, r.Load)))
        {
            var name = SvgChart.Slug(group.Key.Engine) + "-" + SvgChart.Slug(group.Key.Load);
            var unique = name;
            for (var n = 2; !names.Add(unique); n++)
            {
                unique = $"{name}-{n}";
            }

            var path = Path.Combine(directory, unique + ".csv");
            File.WriteAllText(path, Render(group.OrderBy(r => r.Round).ToList()));
            paths.Add(path);
        }

        return paths;
    }

    /// <summary>The CSV text of one engine's runs under one load.</summary>
    public static string Render(IReadOnlyList<ScenarioRun> runs)
    {
        var text = new StringBuilder(Header).Append('\n');
        foreach (var run in runs)
        {
            var stats = run.Stats;
            Row(text, run.Round, AllSteps, stats.Ok, stats.Fail);
            foreach (var step in stats.Steps)
            {
                Row(text, run.Round, step.StepName, step.Ok, step.Fail);
            }
        }

        return text.ToString();
    }

    private static void Row(StringBuilder text, int round, string step, MeasurementStats ok, MeasurementStats fail)
    {
        var latency = ok.Latency;
        string[] cells =
        [
            round.ToString(CultureInfo.InvariantCulture), Quote(step), (ok.Count + fail.Count).ToString(CultureInfo.InvariantCulture),
            ok.Count.ToString(CultureInfo.InvariantCulture), fail.Count.ToString(CultureInfo.InvariantCulture), Number(ok.Rps),
            Number(latency.MinMs), Number(latency.MeanMs), Number(latency.P50Ms), Number(latency.P75Ms), Number(latency.P95Ms),
            Number(latency.P99Ms), Number(latency.MaxMs), Number(latency.StdDevMs), (ok.Bytes + fail.Bytes).ToString(CultureInfo.InvariantCulture),
        ];
        text.AppendJoin(',', cells).Append('\n');
    }

    private static string Number(double value) => double.IsFinite(value) ? Math.Round(value, 4).ToString("0.####", CultureInfo.InvariantCulture) : "";

    /// <summary>RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.</summary>
    private static string Quote(string field) =>
        field.AsSpan().IndexOfAny(",\"\r\n") < 0 ? field : "\"" + field.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
}
