namespace Voron.LoadTests.Experiments;

/// <summary>
/// What encryption at rest may cost, as ratios from one run: a sealed variant's figure over its
/// unsealed twin's (<see cref="Capabilities.SealedTwins"/>), measured beside it in the same
/// process. Durable writes at least <see cref="Writes"/>, point reads and scans at least
/// <see cref="Reads"/>, <c>compare</c>'s paths at least <see cref="Compare"/>. The verdicts are
/// <c>pass</c>, <c>miss</c>, or <c>n/a</c> when the twin has no figure in the run.
/// </summary>
internal static class SealedTargets
{
    public const double Writes = 0.85;
    public const double Reads = 0.8;
    public const double Compare = 0.85;

    /// <summary>The column of a sealed row's verdict.</summary>
    public const string MetColumn = "sealedMet";

    /// <summary>The target in the report's words: "vsUnsealed >= 0.85".</summary>
    public static string Describe(double target) => string.Create(CultureInfo.InvariantCulture, $"vsUnsealed >= {target}");

    /// <summary>The sealed figure over the unsealed one; null when either is missing or the unsealed is not positive.</summary>
    public static double? Ratio(double? sealedValue, double? unsealedValue) =>
        sealedValue is { } s && unsealedValue is { } u && u > 0 ? s / u : null;

    public static string Verdict(double? ratio, double target) =>
        ratio is not { } value || !double.IsFinite(value) ? "n/a" : value >= target ? "pass" : "miss";

    /// <summary>The cells a sealed row adds beside its own figure: the twin, its figure, the ratio, the target and the verdict.</summary>
    public static (string Column, object? Value)[] Cells(string unsealed, double? unsealedValue, double? sealedValue, double target)
    {
        var ratio = Ratio(sealedValue, unsealedValue);
        return
        [
            ("unsealed", unsealed),
            ("unsealedOpsPerSec", unsealedValue),
            ("vsUnsealed", ratio),
            ("sealedTarget", Describe(target)),
            (MetColumn, Verdict(ratio, target)),
        ];
    }

    /// <summary>
    /// Facts <c>sealedTargetsPassed</c> and <c>sealedTargetsMissed</c> counted over the rows'
    /// verdicts (<see cref="MetColumn"/>), and the note that says what the columns are; nothing when
    /// no sealed variant ran.
    /// </summary>
    public static void AddSummary(Report report, string targets)
    {
        var verdicts = report.Rows.Select(r => r.GetValueOrDefault(MetColumn)).OfType<string>().ToList();
        if (verdicts.Count == 0)
        {
            return;
        }

        report.AddFact("sealedTargetsPassed", verdicts.Count(v => v == "pass"));
        report.AddFact("sealedTargetsMissed", verdicts.Count(v => v == "miss"));
        report.AddNote("Encryption at rest (the sealed variants, --encrypt): each sealed row is the same engine opened with a key (StorageEnvironmentOptions.SealingKey, " +
                       "a random 256-bit key per store), run in the same process and interleaved with its unsealed twin (column unsealed); unsealedOpsPerSec is the twin's " +
                       "figure for the same work, vsUnsealed = the sealed figure over it, sealedTarget the issue's target and sealedMet pass, miss, or n/a (no twin figure " +
                       "in this run). Targets: " + targets + ". The facts sealedTargetsPassed and sealedTargetsMissed count them.");
    }
}
