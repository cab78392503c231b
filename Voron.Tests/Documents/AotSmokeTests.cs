using System.Diagnostics;

namespace Voron.Tests.Documents;

/// <summary>
/// Opt-in (VORON_AOT=1, needs clang): publishes samples/AotSmoke with Native AOT — no trim or AOT
/// warning allowed — and runs it: it stores, loads and queries documents through source-generated
/// JSON metadata. Off by default because publishing takes a minute and needs clang.
/// </summary>
public sealed class AotSmokeTests
{
    [Fact]
    public async Task The_Native_AOT_sample_publishes_without_warnings_and_runs()
    {
        if (Environment.GetEnvironmentVariable("VORON_AOT") != "1")
        {
            return; // opt-in: VORON_AOT=1 dotnet test --filter AotSmokeTests (or run samples/AotSmoke/run.sh)
        }

        var root = RepositoryRoot.Find();

        using var process = Process.Start(new ProcessStartInfo("sh", Path.Combine(root, "samples", "AotSmoke", "run.sh"))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        })!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        var (stdout, stderr) = (await output, await error);
        Assert.True(process.ExitCode == 0, $"run.sh exited with {process.ExitCode}: {stdout}{stderr}");
        Assert.Contains("AOT smoke test: ok", stdout, StringComparison.Ordinal);
    }
}
