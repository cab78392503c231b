using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// What each engine asks of the kernel per durable commit, counted once with <c>strace -c -f</c>
/// (system calls are not noise-sensitive, so one run says it): each mode's commit loop runs in a
/// child process (<see cref="SyscallsChild"/>) under strace twice, with no measured commits and
/// with N, and the difference over N is the calls per commit, the data-file flush (Voron) and
/// checkpoints (SQLite) that the commits caused included. A third run traces only the opens, to
/// show which files an engine opens with O_DSYNC, O_SYNC or O_DIRECT (LMDB writes its meta page
/// through an O_DSYNC descriptor: a write that is also a device flush). Needs strace on the PATH
/// (Debian: <c>apt-get install strace</c>); without it the report says so and has no rows.
/// </summary>
internal sealed class SyscallsExperiment : IExperiment
{
    private static readonly string[] SyncCalls = ["fsync", "fdatasync", "msync", "sync_file_range", "syncfs"];
    private static readonly string[] WriteCalls = ["write", "pwrite64", "pwritev", "pwritev2", "writev"];

    private readonly int? _commits;

    /// <param name="commits">Measured commits per mode; default 2,000 (200 with --quick).</param>
    public SyscallsExperiment(int? commits = null)
    {
        _commits = commits;
    }

    public string Name => "syscalls";

    public string Description => "system calls per durable commit of each engine (strace -c -f): syncs, writes, and files opened O_DSYNC";

    public async Task<Report> RunAsync(ExperimentContext context)
    {
        var commits = _commits ?? (context.Quick ? 200 : 2_000);
        var report = context.NewReport(Name, "System calls per durable commit (strace -c -f)");
        report.GroupMarkdownBy("table");
        report.AddFact("commits", commits);
        report.AddFact("commit", "one 1 KiB value under a new 8-byte key (in order), one durable transaction per commit");
        var strace = FindOnPath("strace");
        if (strace == null)
        {
            report.AddNote("strace was not found on the PATH: nothing was counted. Install it (Debian: apt-get install strace) and run again.");
            return report;
        }

        report.AddFact("strace", strace);
        foreach (var mode in SyscallsChild.Modes)
        {
            context.Progress($"{mode}: strace -c -f over 0 and {commits:N0} commits");
            var baseline = await CountAsync(context, strace, mode, 0).ConfigureAwait(false);
            var measured = await CountAsync(context, strace, mode, commits).ConfigureAwait(false);
            var perCommit = measured.Keys.Union(baseline.Keys)
                .ToDictionary(call => call, call => (measured.GetValueOrDefault(call) - baseline.GetValueOrDefault(call)) / (double)commits);
            var flags = await OpenFlagsAsync(context, strace, mode).ConfigureAwait(false);
            report.AddRow(
                ("table", "summary"),
                ("mode", mode),
                ("syncsPerCommit", SyncCalls.Sum(c => perCommit.GetValueOrDefault(c))),
                ("fsyncPerCommit", perCommit.GetValueOrDefault("fsync")),
                ("fdatasyncPerCommit", perCommit.GetValueOrDefault("fdatasync")),
                ("msyncPerCommit", perCommit.GetValueOrDefault("msync")),
                ("writeCallsPerCommit", WriteCalls.Sum(c => perCommit.GetValueOrDefault(c))),
                ("syncOpenedFiles", flags));
            foreach (var (call, count) in perCommit.Where(c => Math.Abs(c.Value) >= 0.02).OrderByDescending(c => c.Value))
            {
                report.AddRow(("table", "calls"), ("mode", mode), ("syscall", call), ("perCommit", count));
            }

            context.Progress($"{mode}: {SyncCalls.Sum(c => perCommit.GetValueOrDefault(c)):F2} syncs and {WriteCalls.Sum(c => perCommit.GetValueOrDefault(c)):F2} write calls per commit; {flags}");
        }

        report.AddNote("perCommit: (calls with N commits - calls with none) / N, all threads of the process (-f); futex, mprotect and the like come from the .NET runtime " +
                       "(thread hand-offs, the merger's tasks) and move a little from run to run. syncsPerCommit adds fsync, fdatasync, msync, sync_file_range and syncfs; " +
                       "a write to a file opened O_DSYNC (syncOpenedFiles) is also a device flush, which strace -c counts as a write.");
        report.AddNote("voron: an explicit write transaction per commit; voron-merged: ExecuteAsync from one caller, so a batch of one with async commit; " +
                       "sqlite: WAL, synchronous=FULL, through Microsoft.Data.Sqlite; lmdb: default durable mode through LightningDB. Each run ends with its store settled " +
                       "(Voron's data-file flush, SQLite's checkpoint), so the work commits cause after they are acknowledged is counted too.");
        return report;
    }

    /// <summary>strace -c -f of the child over <paramref name="commits"/> commits: calls by system call.</summary>
    private static async Task<Dictionary<string, long>> CountAsync(ExperimentContext context, string strace, string mode, int commits)
    {
        var directory = context.NewDirectory($"syscalls-{mode}-{commits}");
        var output = Path.Combine(context.DataDirectory, $"strace-{mode}-{commits}.txt");
        await RunChildAsync(strace, ["-f", "-c", "-o", output], mode, directory, commits).ConfigureAwait(false);
        var counts = ParseSummary(await File.ReadAllTextAsync(output).ConfigureAwait(false));
        Directory.Delete(directory, recursive: true);
        return counts;
    }

    /// <summary>The store files the mode opens with O_DSYNC, O_SYNC or O_DIRECT (from a trace of its opens), or "none".</summary>
    private static async Task<string> OpenFlagsAsync(ExperimentContext context, string strace, string mode)
    {
        var directory = context.NewDirectory($"syscalls-{mode}-opens");
        var output = Path.Combine(context.DataDirectory, $"strace-{mode}-opens.txt");
        await RunChildAsync(strace, ["-f", "-e", "trace=open,openat", "-o", output], mode, directory, 10).ConfigureAwait(false);
        var found = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var line in await File.ReadAllLinesAsync(output).ConfigureAwait(false))
        {
            var match = Regex.Match(line, "open(?:at)?\\((?:[^,]+, )?\"([^\"]+)\", ([A-Z_|]+)");
            if (match.Success && match.Groups[1].Value.StartsWith(directory, StringComparison.Ordinal))
            {
                var flags = match.Groups[2].Value.Split('|').Where(f => f is "O_DSYNC" or "O_SYNC" or "O_DIRECT").ToList();
                if (flags.Count > 0)
                {
                    found.Add($"{Path.GetRelativePath(directory, match.Groups[1].Value)} ({string.Join('|', flags)})");
                }
            }
        }

        Directory.Delete(directory, recursive: true);
        return found.Count == 0 ? "none" : string.Join(", ", found);
    }

    private static async Task RunChildAsync(string strace, string[] straceArguments, string mode, string directory, int commits)
    {
        var start = new ProcessStartInfo(strace) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in straceArguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.ArgumentList.Add("--");
        var host = Environment.ProcessPath!;
        start.ArgumentList.Add(host);
        if (Path.GetFileNameWithoutExtension(host) == "dotnet")
        {
            start.ArgumentList.Add(typeof(SyscallsChild).Assembly.Location);
        }

        start.ArgumentList.Add(SyscallsChild.Command);
        start.ArgumentList.Add(mode);
        start.ArgumentList.Add(directory);
        start.ArgumentList.Add(commits.ToString(CultureInfo.InvariantCulture));
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().ConfigureAwait(false);
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"syscalls: the child for {mode} exited with {process.ExitCode}: {await stdout.ConfigureAwait(false)} {await stderr.ConfigureAwait(false)}");
        }
    }

    /// <summary>Parses the table strace -c prints: <c>% time seconds usecs/call calls [errors] syscall</c>.</summary>
    internal static Dictionary<string, long> ParseSummary(string text)
    {
        var counts = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var line in text.Split('\n'))
        {
            var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length is < 5 or > 6 || !double.TryParse(fields[0], NumberStyles.Float, CultureInfo.InvariantCulture, out _) ||
                !long.TryParse(fields[3], NumberStyles.None, CultureInfo.InvariantCulture, out var calls) || fields[^1] == "total")
            {
                continue;
            }

            counts[fields[^1]] = calls;
        }

        return counts;
    }

    private static string? FindOnPath(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Select(d => Path.Combine(d, name)).FirstOrDefault(File.Exists);
}
