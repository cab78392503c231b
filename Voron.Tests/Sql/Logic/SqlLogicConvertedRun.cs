namespace Voron.Tests.Sql.Logic;

/// <summary>
/// One converted script: parse, sample (<see cref="SqlLogicSample"/>), leave out the known defects
/// (default run only; each printed), run through the conversion, print what ran, what was skipped
/// and why, and how many plans named each index; then assert no failure and, when the script
/// created an index and ran a query, that some query's plan names one of its indexes.
/// </summary>
internal static class SqlLogicConvertedRun
{
    public static void Run(ITestOutputHelper output, string script, SqlLogicConversion conversion, IReadOnlyDictionary<(string Script, int Line), string>? knownDefects)
    {
        var records = SqlLogicSample.Take(SqlLogicScript.Parse(SqlLogicTests.ScriptPath(script)), out var sample);
        output.WriteLine($"{script} on {conversion.Target.Name} tables: {sample}");
        if (knownDefects != null)
        {
            foreach (var ((_, line), what) in knownDefects.Where(d => d.Key.Script == script).OrderBy(d => d.Key.Line))
            {
                if (CrashBudget.Soak == null)
                {
                    output.WriteLine($"KnownModuleDefects: {script}:{line} left out: {what}");
                    records.RemoveAll(r => r.Line == line);
                }
                else
                {
                    output.WriteLine($"KnownModuleDefects: {script}:{line} runs (VORON_SOAK): {what}");
                }
            }
        }

        var report = new SqlLogicReport();
        var failures = SqlLogicRunner.Run(conversion.Connection, records, script, conversion, report);
        output.WriteLine(report.Summary(conversion.Converted));
        foreach (var index in conversion.ScriptIndexes)
        {
            output.WriteLine(report.Queries == 0
                ? $"index {index.Name} ({index.Table}: {string.Join(", ", index.Columns)}): the script has no query, so no plan to check"
                : $"index {index.Name} ({index.Table}: {string.Join(", ", index.Columns)}): named by {report.PlansNaming(index.Name)} of {report.Queries} query plans");
        }

        Assert.True(failures.Count == 0, string.Join("\n\n", failures));
        if (conversion.ScriptIndexes.Count != 0 && report.Queries != 0)
        {
            Assert.True(
                conversion.ScriptIndexes.Any(i => report.PlansNaming(i.Name) > 0),
                $"{script} creates {string.Join(", ", conversion.ScriptIndexes.Select(i => i.Name))}, and no plan of its {report.Queries} queries names one; a plan: {report.Plans[0].Plan}");
        }
    }
}
