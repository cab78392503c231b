namespace Voron.LoadTests.Experiments;

internal sealed partial class BackupExperiment
{
    internal const string ThroughputTable = "throughput";
    internal const string CopiesTable = "copies";
    internal const string Cp = "cp";
    internal const string BackupVerified = "backup, verify";
    internal const string BackupUnverified = "backup, no verify";

    /// <summary>One timed copy: its wall time and, for a backup, what it reported.</summary>
    private sealed record CopyRun(string Method, int Round, double Seconds, BackupResult? Backup);

    /// <summary>
    /// cp + sync against BackupAsync with and without Verify, on the closed store, interleaved:
    /// each round runs the three once, the order reversed every other round. Everything each one
    /// does until its copy is durable is timed; opening the store for a backup, closing it and
    /// deleting the copy are not.
    /// </summary>
    private static async Task MeasureCopiesAsync(ExperimentContext context, Report report, string store, long dataFileBytes, int rounds)
    {
        var methods = new List<string>();
        if (PlainCopy.Available)
        {
            methods.Add(Cp);
        }
        else
        {
            const string missing = "cp or sync is not on the PATH: the cp baseline is skipped, and with it the ratios to cp.";
            context.Output.WriteLine(missing);
            report.AddNote(missing);
        }

        methods.AddRange([BackupVerified, BackupUnverified]);
        var runs = new List<CopyRun>();
        for (var round = 1; round <= rounds; round++)
        {
            var order = round % 2 == 1 ? methods : Enumerable.Reverse(methods).ToList();
            foreach (var method in order)
            {
                var destination = Path.Combine(context.DataDirectory, $"copy-{round}-{runs.Count}");
                DeleteDirectory(destination);
                var run = method == Cp
                    ? CopyWithCp(store, destination, round)
                    : await BackupAsync(context, store, destination, method, round).ConfigureAwait(false);
                DeleteDirectory(destination);
                runs.Add(run);
                context.Progress($"copy round {round} of {rounds}, {method,-17}: {run.Seconds:F2} s, {MBps(dataFileBytes, run.Seconds):N0} MB/s" +
                                 (run.Backup is { } b ? $", writer pause {b.WriterPause.TotalMilliseconds:F2} ms" : ""));
                report.AddRow(
                    ("table", CopiesTable),
                    ("method", method),
                    ("round", round),
                    ("seconds", run.Seconds),
                    ("MBps", MBps(dataFileBytes, run.Seconds)),
                    ("writerPauseMs", run.Backup?.WriterPause.TotalMilliseconds),
                    ("backupSeconds", run.Backup?.Duration.TotalSeconds),
                    ("backupMiB", run.Backup is { } r ? StoreSize.MiB(r.Bytes) : null),
                    ("pages", run.Backup?.Pages));
            }
        }

        var cpSeconds = runs.Any(r => r.Method == Cp) ? Median.Of(runs.Where(r => r.Method == Cp).Select(r => r.Seconds)) : (double?)null;
        foreach (var method in methods)
        {
            var mine = runs.Where(r => r.Method == method).ToList();
            var seconds = Median.Of(mine.Select(r => r.Seconds));
            double? vsCp = cpSeconds is { } cp ? cp / seconds : null;
            var isBackup = method != Cp;
            report.AddRow(
                ("table", ThroughputTable),
                ("method", method),
                ("runs", mine.Count),
                ("medianSeconds", seconds),
                ("MBps", MBps(dataFileBytes, seconds)),
                ("minMBps", MBps(dataFileBytes, mine.Max(r => r.Seconds))),
                ("maxMBps", MBps(dataFileBytes, mine.Min(r => r.Seconds))),
                ("vsCp", vsCp),
                ("maxWriterPauseMs", isBackup ? mine.Max(r => r.Backup!.WriterPause.TotalMilliseconds) : null),
                ("target", isBackup ? CpTarget : null),
                ("met", isBackup && vsCp is { } ratio ? ratio >= CpTarget : null));
        }

        report.AddNote($"throughput: MB/s is the data file's bytes ({StoreSize.MiB(dataFileBytes):N0} MiB; MB = 10^6 bytes) over the wall time until the copy is durable, the median of {rounds} interleaved runs " +
                       "(the order reversed every other round); cp: cp of the closed store's data file and header copies (what a backup carries; not its journal files) into a new directory, then sync of every copied file and the directory; " +
                       "backup: BackupAsync of the same store reopened (its open and close not timed), its verification, syncs and manifest timed. " +
                       $"vsCp: the backup's MB/s over cp's. Target: at least {CpTarget}x cp. maxWriterPauseMs: BackupResult.WriterPause, the longest a writer waited on the backup.");
    }

    private static CopyRun CopyWithCp(string store, string destination, int round)
    {
        var watch = Stopwatch.StartNew();
        PlainCopy.CopyAndSync(store, destination);
        return new CopyRun(Cp, round, watch.Elapsed.TotalSeconds, null);
    }

    private static async Task<CopyRun> BackupAsync(ExperimentContext context, string store, string destination, string method, int round)
    {
        using var environment = StorageEnvironment.Open(context.Disk.VoronOptions(store));
        var options = new BackupOptions { Verify = method == BackupVerified };
        var watch = Stopwatch.StartNew();
        var result = await environment.BackupAsync(destination, options).ConfigureAwait(false);
        return new CopyRun(method, round, watch.Elapsed.TotalSeconds, result);
    }
}
