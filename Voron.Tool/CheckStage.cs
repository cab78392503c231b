namespace Voron.Tool;

/// <summary>
/// One stage of <c>voron check</c> and what it found: <see cref="Ok"/> with what it covered, or
/// damaged with the reason and, when the engine named them, the file and offset.
/// </summary>
/// <param name="Name">The stage ("open", "pages and trees", "documents", "sqlite shop").</param>
/// <param name="Status">"ok", "damaged", "warning" (found something an open handles or that is not damage for certain), "failed" (the stage could not run: not a verdict on the store) or "skipped".</param>
/// <param name="Detail">What was checked (ok), why it was skipped, or what is wrong (damaged).</param>
/// <param name="File">The damaged file, when known.</param>
/// <param name="Offset">The damaged bytes' offset in <paramref name="File"/>, when known.</param>
internal sealed record CheckStage(string Name, string Status, string Detail, string? File = null, long? Offset = null)
{
    /// <summary>How long the stage took (the report prints it; --json gives it as "seconds").</summary>
    public double? Seconds { get; init; }

    public const string Ok = "ok";
    public const string Damaged = "damaged";
    public const string Skipped = "skipped";
    public const string Warning = "warning";
    public const string Failed = "failed";

    /// <summary>A stage that could not run, from what stopped it: a failure of the check, not a finding about the store.</summary>
    public static CheckStage FromFailure(string name, Exception e) => new(name, Failed, $"{e.GetType().Name}: {e.Message}");

    /// <summary>A damaged stage from the exception that revealed the damage.</summary>
    public static CheckStage FromDamage(string name, Exception e) => e is CorruptionException corruption
        ? new CheckStage(name, Damaged, corruption.Reason, corruption.File, corruption.Offset)
        : new CheckStage(name, Damaged, e.Message);
}
