namespace Voron.Tool;

/// <summary>
/// One stage of <c>voron check</c> and what it found: <see cref="Ok"/> with what it covered, or
/// damaged with the reason and, when the engine named them, the file and offset.
/// </summary>
/// <param name="Name">The stage ("open", "pages and trees", "documents", "sqlite shop").</param>
/// <param name="Status">"ok", "damaged" or "skipped".</param>
/// <param name="Detail">What was checked (ok), why it was skipped, or what is wrong (damaged).</param>
/// <param name="File">The damaged file, when known.</param>
/// <param name="Offset">The damaged bytes' offset in <paramref name="File"/>, when known.</param>
internal sealed record CheckStage(string Name, string Status, string Detail, string? File = null, long? Offset = null)
{
    public const string Ok = "ok";
    public const string Damaged = "damaged";
    public const string Skipped = "skipped";

    /// <summary>A damaged stage from the exception that revealed the damage.</summary>
    public static CheckStage FromDamage(string name, Exception e) => e is CorruptionException corruption
        ? new CheckStage(name, Damaged, corruption.Reason, corruption.File, corruption.Offset)
        : new CheckStage(name, Damaged, e.Message);
}
