using System.Diagnostics;
using System.Text.RegularExpressions;

namespace Voron.Tests.AspNetCore;

/// <summary>
/// samples/DocumentsApi started as a real process on a store another opener holds: it must say so
/// once, without a stack trace, and exit with a normal non-zero code.
/// </summary>
/// <remarks>
/// Regression: the second app printed the StoreLockedException with its stack trace three times (58
/// lines) and aborted with exit code 134. The causes: the hosting layer logged the open failure
/// with the exception (1), the generic host logs every hosted service's start failure again,
/// "Hosting failed to start" (2), and the sample's <c>app.Run()</c> let the exception out of
/// <c>Main</c>, so the runtime printed it as unhandled (3) and called abort() — SIGABRT, 134. Now the
/// hosting layer leaves a start failure to the host's one log entry, the exception it throws
/// (<c>DocumentStoreOpenException</c>) prints a locked store as one line (its message names the lock
/// file; the stack trace of an environmental refusal tells nothing), and the sample catches it and
/// returns 1. No timing: the test holds the lock itself before the child starts, and waits for the
/// child's exit (bounded generously, only so a hang fails instead of blocking the run).
/// </remarks>
public sealed class LockedStoreProcessTests(ITestOutputHelper output) : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public async Task Sample_on_a_locked_store_logs_one_line_without_a_stack_trace_and_exits_with_code_1()
    {
        var path = _directory.Combine("store");
        using var holder = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(path));

        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            WorkingDirectory = AppContext.BaseDirectory,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "DocumentsApi.dll"));
        start.ArgumentList.Add("--urls");
        start.ArgumentList.Add("http://127.0.0.1:0");
        start.Environment["Voron__Documents__Path"] = path;
        start.Environment["ASPNETCORE_ENVIRONMENT"] = "Production";
        start.Environment["Logging__Console__FormatterName"] = "simple";
        using var child = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        var stdout = child.StandardOutput.ReadToEndAsync();
        var stderr = child.StandardError.ReadToEndAsync();
        using (var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(3)))
        {
            try
            {
                await child.WaitForExitAsync(timeout.Token);
            }
            catch (OperationCanceledException)
            {
                child.Kill(entireProcessTree: true);
                throw;
            }
        }

        var all = await stdout + await stderr;
        output.WriteLine($"exit code {child.ExitCode}:\n{all}");
        Assert.Equal(1, child.ExitCode); // not 134 (SIGABRT after an unhandled exception)
        Assert.Equal(1, Regex.Count(all, @"is already open by (process \d+|another process)")); // the lock file names the holder where it can be read (LF1)
        Assert.Contains(Path.Combine(path, "voron.lock"), all, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", all, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"(?m)^\s+at ", all); // no stack trace
    }

    public void Dispose() => _directory.Dispose();
}
