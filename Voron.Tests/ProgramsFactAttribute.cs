using System.Runtime.InteropServices;

namespace Voron.Tests;

/// <summary>
/// A fact that needs programs the machine may lack (a C toolchain for Native AOT, the sqlite3
/// shell): it runs on linux-x64 (what the publish scripts target) when every one is on PATH, and is
/// skipped with the reason and the command that installs them otherwise, never reported as passed
/// without running. With <c>VORON_REQUIRE_PROGRAMS=1</c> (.ci/run sets it after installing them)
/// it is never skipped: a machine that should have them fails the test, naming what is missing.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class ProgramsFactAttribute : FactAttribute
{
    /// <summary>The variable that turns a skip into a run (which then fails on what is missing).</summary>
    public const string RequireVariable = "VORON_REQUIRE_PROGRAMS";

    /// <param name="install">How to install the programs (shown in the skip reason).</param>
    /// <param name="programs">The programs, looked up on PATH.</param>
    public ProgramsFactAttribute(string install, params string[] programs)
    {
        if (Environment.GetEnvironmentVariable(RequireVariable) == "1")
        {
            return;
        }

        if (!OperatingSystem.IsLinux() || RuntimeInformation.OSArchitecture != Architecture.X64)
        {
            Skip = $"needs linux-x64 (the publish scripts target it), not {RuntimeInformation.RuntimeIdentifier}.";
            return;
        }

        var missing = programs.Where(p => Find(p) == null).ToList();
        if (missing.Count > 0)
        {
            Skip = $"needs {string.Join(" and ", missing)} on PATH: {install} (see docs/testing.md).";
        }
    }

    /// <summary>The full path of <paramref name="program"/> on PATH, or null.</summary>
    public static string? Find(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, program))
            .FirstOrDefault(File.Exists);

    /// <summary>The full path of <paramref name="program"/> on PATH; fails the test, naming it, when it is missing.</summary>
    public static string Require(string program) =>
        Find(program) ?? throw new Xunit.Sdk.XunitException($"{program} is not on PATH ({RequireVariable}=1 asks for it: install it, see docs/testing.md).");
}
