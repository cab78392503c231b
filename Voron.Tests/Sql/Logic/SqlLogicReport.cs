namespace Voron.Tests.Sql.Logic;

/// <summary>
/// What a run of a script did: statements and queries run, statements skipped (by reason), and the
/// <c>EXPLAIN QUERY PLAN</c> of every query run, so a test can ask whether a plan named an index.
/// </summary>
internal sealed class SqlLogicReport
{
    public int Statements { get; set; }

    public int Queries { get; set; }

    /// <summary>Time spent on statements and on queries (printed, never asserted).</summary>
    public TimeSpan StatementTime { get; set; }

    public TimeSpan QueryTime { get; set; }

    public Dictionary<string, int> Skipped { get; } = new(StringComparer.Ordinal);

    /// <summary>Each query run: its line and its plan, the detail column of each plan row joined with " | ".</summary>
    public List<(int Line, string Plan)> Plans { get; } = [];

    /// <summary>Each query's line and time, for <see cref="Summary"/>'s slowest three.</summary>
    public List<(int Line, TimeSpan Time)> QueryTimes { get; } = [];

    public void Skip(string reason) => Skipped[reason] = Skipped.GetValueOrDefault(reason) + 1;

    /// <summary>The plans that name <paramref name="indexName"/>.</summary>
    public int PlansNaming(string indexName) => Plans.Count(p => p.Plan.Contains(indexName, StringComparison.OrdinalIgnoreCase));

    public string Summary(int converted)
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{Statements} statements ({converted} converted) and {Queries} queries ran " +
            $"({StatementTime.TotalSeconds:F1} s on statements, {QueryTime.TotalSeconds:F1} s on queries); {Skipped.Values.Sum()} statements skipped");
        if (QueryTimes.Count != 0)
        {
            text.Append("\n  slowest queries: ").AppendJoin(", ", QueryTimes.OrderByDescending(q => q.Time).Take(3).Select(q => $"line {q.Line} {q.Time.TotalSeconds:F2} s"));
        }

        foreach (var (reason, count) in Skipped.OrderBy(s => s.Key, StringComparer.Ordinal))
        {
            text.Append(CultureInfo.InvariantCulture, $"\n  skipped {count}: {reason}");
        }

        return text.ToString();
    }
}
