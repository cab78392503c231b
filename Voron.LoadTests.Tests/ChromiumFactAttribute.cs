namespace Voron.LoadTests.Tests;

/// <summary>
/// A fact that needs Chromium on PATH (Debian's <c>chromium</c> package): it runs where the program
/// is, and is skipped with the reason otherwise, never reported as passed without running. CI does
/// not install it (about 155 MB of packages for a check of the report's rendering).
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class ChromiumFactAttribute : FactAttribute
{
    public ChromiumFactAttribute()
    {
        if (Path is null)
        {
            Skip = "needs chromium on PATH to render the report headless: apt-get install chromium (see docs/testing.md).";
        }
    }

    /// <summary>The full path of chromium on PATH, or null.</summary>
    public static string? Path { get; } = (Environment.GetEnvironmentVariable("PATH") ?? "")
        .Split(System.IO.Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Select(directory => System.IO.Path.Combine(directory, "chromium"))
        .FirstOrDefault(File.Exists);
}
