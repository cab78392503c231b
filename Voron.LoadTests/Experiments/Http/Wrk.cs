using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace Voron.LoadTests.Experiments.Http;

/// <summary>
/// Runs wrk (Debian's package: <c>apt-get install wrk</c>), a load generator that is not ours, with
/// a Lua script per endpoint. The script's <c>done</c> hook prints wrk's own totals and latency
/// percentiles as one JSON line, so nothing is parsed from its human-readable output.
/// </summary>
internal static class Wrk
{
    internal const string InstallNote =
        "wrk is not installed, so the http experiment ran nothing: install Debian's package (apt-get install wrk) and run it again. " +
        "(Debian's bombardier package is another program, a game, not the HTTP load generator.)";

    private const string Marker = "WRKJSON ";

    /// <summary>wrk's version line, or null when it is not installed.</summary>
    public static string? Version()
    {
        try
        {
            using var process = Process.Start(new ProcessStartInfo("wrk", "--version") { RedirectStandardOutput = true, RedirectStandardError = true })!;
            var text = process.StandardOutput.ReadToEnd() + process.StandardError.ReadToEnd();
            process.WaitForExit();
            return text.Split('\n')[0].Trim();
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }

    /// <summary>Loads <paramref name="address"/> with <paramref name="script"/> (Lua, <c>request</c> hook) for <paramref name="duration"/>.</summary>
    public static async Task<WrkResult> RunAsync(string address, string script, int connections, TimeSpan duration, string scriptDirectory)
    {
        var path = Path.Combine(scriptDirectory, $"wrk-{Guid.NewGuid():N}.lua");
        await File.WriteAllTextAsync(path, script + DoneHook).ConfigureAwait(false);
        try
        {
            var arguments = string.Create(CultureInfo.InvariantCulture,
                $"-t 2 -c {connections} -d {Math.Max(1, (int)duration.TotalSeconds)}s --timeout 30s -s {path} {address}");
            using var process = Process.Start(new ProcessStartInfo("wrk", arguments) { RedirectStandardOutput = true, RedirectStandardError = true })!;
            var output = process.StandardOutput.ReadToEndAsync();
            var error = process.StandardError.ReadToEndAsync();
            await process.WaitForExitAsync().ConfigureAwait(false);
            var line = (await output.ConfigureAwait(false)).Split('\n').FirstOrDefault(l => l.StartsWith(Marker, StringComparison.Ordinal))
                ?? throw new InvalidOperationException($"wrk {arguments} printed no totals (exit {process.ExitCode}): {await error.ConfigureAwait(false)}");
            using var json = JsonDocument.Parse(line[Marker.Length..]);
            var root = json.RootElement;
            double Get(string name) => root.GetProperty(name).GetDouble();
            return new WrkResult(
                (long)Get("requests"),
                Get("durationUs") / 1e6,
                (long)Get("errors"),
                (long)Get("status"),
                Get("p50Us") / 1000,
                Get("p99Us") / 1000);
        }
        finally
        {
            File.Delete(path);
        }
    }

    // wrk calls done() once with its totals; latency percentiles are in microseconds.
    private const string DoneHook = """

        done = function(summary, latency, requests)
          local e = summary.errors
          io.write(string.format('WRKJSON {"requests":%d,"durationUs":%d,"errors":%d,"status":%d,"p50Us":%d,"p99Us":%d}\n',
            summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
            latency:percentile(50), latency:percentile(99)))
        end
        """;
}
