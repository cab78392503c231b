namespace Voron.Tests.Sql.Logic;

/// <summary>
/// Bounds a converted script's cost in the default run: every statement (they build the state the
/// queries read) and a deterministic sample of the queries — the first <see cref="FirstQueries"/>
/// plus <see cref="SampledQueries"/> more drawn with a fixed seed (VORON_SEED replaces it, to look
/// at other queries) — in script order. Under VORON_SOAK every query runs.
/// </summary>
internal static class SqlLogicSample
{
    public const int FirstQueries = 30;

    public const int SampledQueries = 30;

    public const int DefaultSeed = 21;

    public static List<SqlLogicRecord> Take(IReadOnlyList<SqlLogicRecord> records, out string description)
    {
        var queries = records.OfType<SqlLogicQuery>().ToList();
        if (CrashBudget.Soak != null || queries.Count <= FirstQueries + SampledQueries)
        {
            description = $"all {queries.Count} queries{(CrashBudget.Soak != null ? " (VORON_SOAK)" : "")}";
            return [.. records];
        }

        var text = Environment.GetEnvironmentVariable("VORON_SEED");
        var seed = int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out var fixedSeed) ? fixedSeed : DefaultSeed;
        var rest = queries.Skip(FirstQueries).ToArray();
        new Random(seed).Shuffle(rest);
        var chosen = new HashSet<SqlLogicRecord>(queries.Take(FirstQueries).Concat(rest.Take(SampledQueries)), ReferenceEqualityComparer.Instance);
        description = $"{chosen.Count} of {queries.Count} queries: the first {FirstQueries} and {SampledQueries} drawn with seed {seed} " +
            $"(replay another sample with VORON_SEED=<n>; all with VORON_SOAK=1)";
        return [.. records.Where(r => r is not SqlLogicQuery || chosen.Contains(r))];
    }
}
