using System.Globalization;

namespace Voron.Tool;

/// <summary>
/// How backup, restore, compact, export and import print what they did: one <c>name: value</c>
/// line per fact, names aligned, numbers in the invariant culture (the output is the same on
/// every machine, and scripts can cut it).
/// </summary>
internal static class ResultPrinter
{
    public static void Write(TextWriter writer, params (string Name, object? Value)[] facts)
    {
        var width = facts.Max(f => f.Name.Length) + 1;
        foreach (var (name, value) in facts)
        {
            writer.WriteLine($"{(name + ":").PadRight(width)} {Format(value)}");
        }
    }

    /// <summary>A byte count as a person reads it: <c>1,234,567 bytes (1.2 MiB)</c>.</summary>
    public static string Bytes(long bytes)
    {
        var count = bytes.ToString("N0", CultureInfo.InvariantCulture) + " bytes";
        return bytes < 1024 ? count : $"{count} ({Human(bytes)})";
    }

    /// <summary>A byte count with a binary unit (<c>1.2 MiB</c>).</summary>
    public static string Human(double bytes)
    {
        string[] units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
        var unit = 0;
        while (bytes >= 1024 && unit < units.Length - 1)
        {
            bytes /= 1024;
            unit++;
        }

        return unit == 0 ? $"{bytes:F0} bytes" : string.Create(CultureInfo.InvariantCulture, $"{bytes:F1} {units[unit]}");
    }

    /// <summary>A count and its noun: <c>1 document</c>, <c>1,000 documents</c>.</summary>
    public static string Count(long count, string noun) =>
        string.Create(CultureInfo.InvariantCulture, $"{count:N0} {noun}{(count == 1 ? "" : "s")}");

    /// <summary>A duration in seconds with milliseconds (<c>0.123 s</c>).</summary>
    public static string Seconds(TimeSpan duration) => string.Create(CultureInfo.InvariantCulture, $"{duration.TotalSeconds:F3} s");

    /// <summary>A rate per second over <paramref name="duration"/>, or "-" when it was too short to tell.</summary>
    public static double? PerSecond(long count, TimeSpan duration) => duration.TotalSeconds > 0.0005 ? count / duration.TotalSeconds : null;

    /// <summary>Progress of a backup, restore or compaction, in the tool's terms (pages, or bytes of journal while replaying).</summary>
    public static ProgressStep Step(BackupProgress progress) =>
        new(progress.Phase, progress.Done, progress.Total, progress.Phase == "replay" ? "bytes" : "pages");

    /// <summary>An <see cref="IProgress{T}"/> of backup progress that forwards to the tool's progress, on the reporting thread.</summary>
    public static IProgress<BackupProgress> Forward(IProgress<ProgressStep> progress) => new Forwarder<BackupProgress>(p => progress.Report(Step(p)));

    private static string Format(object? value) => value switch
    {
        null => "-",
        bool b => b ? "yes" : "no",
        long or int => string.Format(CultureInfo.InvariantCulture, "{0:N0}", value),
        TimeSpan t => Seconds(t),
        DateTimeOffset d => d.ToString("O", CultureInfo.InvariantCulture),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? "-",
    };
}
