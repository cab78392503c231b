using System.Diagnostics;
using Voron.Testing.Processes;

namespace Voron.Tests.Core.Replication;

/// <summary>
/// A read replica in another process: <c>Voron.Testing.Processes follow-child</c> (FollowChild.cs),
/// its standard output collected line by line, its standard input held open (closing it tells the
/// child to exit), killed by Dispose if it is still running.
/// </summary>
internal sealed class FollowerProcess : IDisposable
{
    private readonly Process _child;
    private readonly List<string> _lines = [];
    private readonly Thread _reader;
    private readonly Task<string> _errors;

    private FollowerProcess(Process child)
    {
        _child = child;
        _reader = new Thread(() =>
        {
            while (child.StandardOutput.ReadLine() is { } line)
            {
                lock (_lines)
                {
                    _lines.Add(line);
                }
            }
        }) { IsBackground = true, Name = "follow-child output" };
        _reader.Start();
        _errors = child.StandardError.ReadToEndAsync();
    }

    /// <summary>Starts a follower of <paramref name="lineage"/> into <paramref name="directory"/> that exits once it read <paramref name="until"/>.</summary>
    public static FollowerProcess Start(string directory, string lineage, long until, string[] destination)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in (string[])[Path.Combine(AppContext.BaseDirectory, "Voron.Testing.Processes.dll"), FollowChild.Command, directory, lineage,
                     until.ToString(CultureInfo.InvariantCulture), .. destination])
        {
            start.ArgumentList.Add(argument);
        }

        return new FollowerProcess(Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start"));
    }

    /// <summary>
    /// Waits for the child to exit by itself; after <paramref name="hangGuard"/> closes its input
    /// (it exits with <see cref="FollowChild.StdinClosed"/>). Returns its exit code, every line it
    /// printed and its standard error.
    /// </summary>
    public async Task<(int ExitCode, List<string> Lines, string Errors)> WaitAsync(TimeSpan hangGuard)
    {
        using (var timeout = new CancellationTokenSource(hangGuard))
        {
            try
            {
                await _child.WaitForExitAsync(timeout.Token);
            }
            catch (OperationCanceledException)
            {
                _child.StandardInput.Close();
                using var grace = new CancellationTokenSource(TimeSpan.FromMinutes(1));
                await _child.WaitForExitAsync(grace.Token);
            }
        }

        _reader.Join(); // the output is read to its end: nobody adds lines any more
        return (_child.ExitCode, [.. _lines], await _errors);
    }

    public void Dispose()
    {
        if (!_child.HasExited)
        {
            _child.Kill();
            _child.WaitForExit();
        }

        _child.Dispose();
    }
}
