using System.Diagnostics;
using System.Globalization;

namespace Voron.Tool.Tests;

/// <summary>
/// Runs Voron.Testing.Processes (<c>dotnet Voron.Testing.Processes.dll ...</c> from the test's
/// output directory, as Voron.Tests does): <c>unflushed</c> makes a store whose last transactions
/// are only in the journal, <c>hold</c> keeps a store open in another process.
/// </summary>
internal static class DamageProcesses
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);

    /// <summary>One journal record: its file, offset and length.</summary>
    internal sealed record Record(string Path, long Offset, long Length);

    private static Process Start(params string[] args)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Voron.Testing.Processes.dll"));
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        return Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
    }

    /// <summary>Makes the <c>unflushed</c> store in <paramref name="directory"/>; returns its journal records in commit order.</summary>
    public static List<Record> MakeUnflushed(string directory)
    {
        using var child = Start("unflushed", directory);
        child.StandardInput.Close();
        var errors = child.StandardError.ReadToEndAsync();
        var lines = child.StandardOutput.ReadToEnd();
        Assert.True(child.WaitForExit(Timeout), "the unflushed child did not exit");
        Assert.True(child.ExitCode == 0, $"the unflushed child failed: {errors.Result}");
        return [.. lines.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Where(line => line.StartsWith("RECORD ", StringComparison.Ordinal))
            .Select(line => line.Split(' '))
            .Select(parts => new Record(parts[1], long.Parse(parts[2], CultureInfo.InvariantCulture), long.Parse(parts[3], CultureInfo.InvariantCulture)))];
    }

    /// <summary>Opens the store in <paramref name="directory"/> in another process until the result is disposed.</summary>
    public static HeldStore Hold(string directory) => new(Start("hold", directory));

    /// <summary>A store another process holds open; disposing closes that process's standard input, and it closes the store and exits.</summary>
    internal sealed class HeldStore : IDisposable
    {
        private readonly Process _child;

        public HeldStore(Process child)
        {
            _child = child;
            var ready = _child.StandardOutput.ReadLineAsync();
            if (!ready.Wait(Timeout) || ready.Result is not { } line || !line.StartsWith("READY ", StringComparison.Ordinal))
            {
                var error = _child.HasExited ? _child.StandardError.ReadToEnd() : "(still running)";
                _child.Kill();
                throw new InvalidOperationException($"the hold child did not get ready: {error}");
            }

            ProcessId = int.Parse(line["READY ".Length..], CultureInfo.InvariantCulture);
        }

        /// <summary>The holder's process id, as it printed it.</summary>
        public int ProcessId { get; }

        public void Dispose()
        {
            _child.StandardInput.Close();
            if (!_child.WaitForExit(Timeout))
            {
                _child.Kill();
            }

            _child.Dispose();
        }
    }
}
