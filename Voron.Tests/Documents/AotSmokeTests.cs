using System.Diagnostics;

namespace Voron.Tests.Documents;

/// <summary>
/// Publishes samples/AotSmoke with Native AOT — no trim or AOT warning allowed — and runs it: it
/// stores, loads and queries documents through source-generated JSON metadata. Needs clang (the
/// AOT linker); skipped, with the reason, without it. About two minutes on 2 cores (the publish).
/// </summary>
[Collection(NativePublishCollection.Name)]
public sealed class AotSmokeTests
{
    [ProgramsFact("apt-get install clang", "clang")]
    public async Task The_Native_AOT_sample_publishes_without_warnings_and_runs()
    {
        ProgramsFactAttribute.Require("clang");
        var root = RepositoryRoot.Find();

        using var process = Process.Start(new ProcessStartInfo("sh", Path.Combine(root, "samples", "AotSmoke", "run.sh"))
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        })!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        try
        {
            // A guard, not a timing: a publish that never ends (or leaves a process holding its
            // output) fails the test instead of hanging the run.
            await Task.WhenAll(process.WaitForExitAsync(), output, error).WaitAsync(TimeSpan.FromMinutes(30));
        }
        catch (TimeoutException)
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail("run.sh did not end, or left a process holding its output, within 30 minutes.");
        }

        var (stdout, stderr) = (await output, await error);
        Assert.True(process.ExitCode == 0, $"run.sh exited with {process.ExitCode}: {stdout}{stderr}");
        Assert.Contains("AOT smoke test: ok", stdout, StringComparison.Ordinal);
    }
}
