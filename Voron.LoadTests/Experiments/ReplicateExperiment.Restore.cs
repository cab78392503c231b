using Voron.LoadTests.Data;
using Voron.LoadTests.Experiments.Replicate;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ReplicateExperiment
{
    internal const string RestoreSummaryTable = "restore";
    internal const string RestoreRunsTable = "restore runs";
    internal const string CpBaseline = "cp";

    /// <summary>
    /// Restore from object storage against cp: one store (untimed) ships to the directory
    /// destination, with a snapshot uploaded half way through its writes, so the lineage holds a
    /// snapshot and the journal after it; its objects are copied as they are into every other
    /// destination. Then, in <paramref name="runs"/> runs whose order reverses every other run,
    /// <see cref="ObjectArchive.RestoreAsync"/> from each destination into a fresh directory, and
    /// <c>cp -R</c> + <c>sync</c> of the directory destination's files (the objects' bytes), each
    /// timed until its result is durable.
    /// </summary>
    private async Task MeasureRestoreAsync(ExperimentContext context, Report report, ArchiveTargets targets, int runs)
    {
        var restoreBytes = _restoreBytes ?? (context.Quick ? 4L << 20 : 64L << 20);
        report.AddFact("restoreValuesMiB", StoreSize.MiB(restoreBytes));
        var source = (DirectoryArchiveDestination)await targets.OpenAsync(ArchiveTargets.DirectoryTarget).ConfigureAwait(false);
        var (lineage, expectedTransaction) = await BuildShippedStoreAsync(context, source, restoreBytes).ConfigureAwait(false);
        long objects = 0, objectBytes = 0;
        await foreach (var item in source.ListAsync(lineage + "/").ConfigureAwait(false))
        {
            objects++;
            objectBytes += item.Length;
        }

        report.AddFact("restoreObjects", objects);
        report.AddFact("restoreObjectsMiB", StoreSize.MiB(objectBytes));
        report.AddFact("restoreTransactionId", expectedTransaction);
        report.AddFact("restoreDurability", "ObjectArchive.RestoreAsync downloads every object (fsynced), checks each and the chain, replays into the target and syncs it: durable when it returns");
        report.AddFact("cpDurability", "cp -R of the directory destination's lineage folder (the same objects' bytes), then sync of every copied file and directory: durable when the clock stops");

        var methods = new List<string>();
        if (PlainCopy.Available)
        {
            methods.Add(CpBaseline);
        }

        var destinations = new Dictionary<string, IArchiveDestination> { [ArchiveTargets.DirectoryTarget] = source };
        try
        {
            foreach (var name in ArchiveTargets.All.Where(n => n != ArchiveTargets.DirectoryTarget && targets.WhyNot(n) == null))
            {
                context.Progress($"restore: copying the {objects:N0} objects ({StoreSize.MiB(objectBytes):N1} MiB) into {name} (not timed)");
                var copy = await targets.OpenAsync(name).ConfigureAwait(false);
                destinations[name] = copy;
                await CopyObjectsAsync(source, copy, lineage + "/").ConfigureAwait(false);
            }

            methods.AddRange(ArchiveTargets.All.Where(destinations.ContainsKey));
            var seconds = methods.ToDictionary(m => m, _ => new List<double>());
            var restored = Path.Combine(context.DataDirectory, "restored");
            for (var run = 1; run <= runs; run++)
            {
                foreach (var method in InRunOrder(methods, run))
                {
                    DeleteDirectory(restored);
                    long? transaction = null;
                    var watch = Stopwatch.StartNew();
                    if (method == CpBaseline)
                    {
                        PlainCopy.CopyTreeAndSync(Path.Combine(source.Description, lineage), restored);
                    }
                    else
                    {
                        // recordFork: false leaves the destination as it was for the next run (no fork note written).
                        transaction = (await ObjectArchive.RestoreAsync(destinations[method], lineage, restored, recordFork: false).ConfigureAwait(false)).TransactionId;
                    }

                    var elapsed = watch.Elapsed.TotalSeconds;
                    DeleteDirectory(restored);
                    if (transaction is { } id && id != expectedTransaction)
                    {
                        throw new InvalidOperationException($"the restore from {method} reached transaction {id}, not {expectedTransaction}, the last one shipped.");
                    }

                    seconds[method].Add(elapsed);
                    context.Progress($"restore run {run} of {runs}, {method,-9}: {elapsed:F2} s, {MBps(objectBytes, elapsed):N0} MB/s");
                    report.AddRow(("table", RestoreRunsTable), ("method", method), ("run", run), ("seconds", elapsed), ("MBps", MBps(objectBytes, elapsed)), ("transactionId", transaction));
                }
            }

            double? cpSeconds = seconds.TryGetValue(CpBaseline, out var cp) ? Median.Of(cp) : null;
            if (cpSeconds is null)
            {
                report.AddRow(("table", RestoreSummaryTable), ("method", CpBaseline), ("skipped", "skipped: cp or sync is not on the PATH (and with it the ratios to cp)"));
            }

            foreach (var method in ArchiveTargets.All.Prepend(CpBaseline))
            {
                if (!seconds.TryGetValue(method, out var mine))
                {
                    if (method != CpBaseline)
                    {
                        report.AddRow(("table", RestoreSummaryTable), ("method", method), ("skipped", targets.WhyNot(method)));
                    }

                    continue;
                }

                var median = Median.Of(mine);
                report.AddRow(
                    ("table", RestoreSummaryTable),
                    ("method", method),
                    ("runs", mine.Count),
                    ("medianSeconds", median),
                    ("MBps", MBps(objectBytes, median)),
                    ("minMBps", MBps(objectBytes, mine.Max())),
                    ("maxMBps", MBps(objectBytes, mine.Min())),
                    ("objectsMiB", StoreSize.MiB(objectBytes)),
                    ("vsCp", cpSeconds is { } c ? c / median : null));
            }
        }
        finally
        {
            foreach (var destination in destinations.Values.Where(d => d != source))
            {
                (destination as IDisposable)?.Dispose();
            }
        }

        report.AddNote($"restore: a store (Durable) written with {StoreSize.MiB(restoreBytes):N0} MiB of 0.5-4 KiB realistic JSON values, a backup uploaded as a snapshot after the first half, " +
                       "shipping its journal to the directory destination, settled and caught up; its objects then copied unchanged into the other destinations (not timed). " +
                       "Each run: ObjectArchive.RestoreAsync(destination, lineage, fresh directory, recordFork: false) to the last shipped transaction (checked), timed to its return; " +
                       $"{CpBaseline}: cp -R of the same objects' files + sync. MB/s: the objects' bytes (restoreObjectsMiB) over the median wall time (MB = 10^6 bytes); vsCp: cp's median time over the restore's. " +
                       "Runs interleave the methods, the order reversed every other run.");
    }

    /// <summary>
    /// A store shipping to <paramref name="destination"/>: half the values, a backup uploaded as a
    /// snapshot, the other half, settled and caught up, closed and deleted. Returns the lineage and
    /// the transaction a restore from the destination reaches: the last shipped, or the snapshot's
    /// when no journal file after it was released.
    /// </summary>
    private static async Task<(string Lineage, long Transaction)> BuildShippedStoreAsync(ExperimentContext context, IArchiveDestination destination, long bytes)
    {
        const int PutsPerTransaction = 32;
        var directory = context.NewDirectory("restore-store");
        var archive = context.NewDirectory("restore-archive");
        var backup = Path.Combine(context.DataDirectory, "restore-backup");
        var json = new RealisticJson(Seed);
        var pool = Enumerable.Range(0, 2048).Select(_ => json.Next(512, 4096)).ToArray();
        context.Progress($"restore: building a store of {StoreSize.MiB(bytes):N0} MiB of values that ships to the directory destination, a snapshot half way (not timed)");
        try
        {
            var options = context.Disk.VoronOptions(directory);
            options.JournalFileSize = Math.Clamp(bytes / 8, 256L << 10, 64L << 20); // several released, so shipped, after the snapshot
            options.JournalArchiveDirectory = archive;
            options.ArchiveDestination = destination;
            using var environment = StorageEnvironment.Open(options);
            long key = 0, written = 0;
            long? snapshot = null;
            while (written < bytes)
            {
                var first = key;
                key += PutsPerTransaction;
                await environment.ExecuteAsync(tx =>
                {
                    var tree = tx.CreateTree(Tree);
                    for (var k = first; k < first + PutsPerTransaction; k++)
                    {
                        tree.Put(KvDataSet.Key(k), pool[k % pool.Length]);
                    }
                }).ConfigureAwait(false);
                written += Enumerable.Range(0, PutsPerTransaction).Sum(i => 8L + pool[(first + i) % pool.Length].Length);
                if (snapshot is null && written >= bytes / 2)
                {
                    var result = await environment.BackupAsync(backup).ConfigureAwait(false);
                    snapshot = await ObjectArchive.UploadSnapshotAsync(destination, result.Directory).ConfigureAwait(false);
                    DeleteDirectory(backup);
                }
            }

            environment.FlushToDataFile();
            var status = await environment.ShipArchiveAsync().ConfigureAwait(false);
            return (status.Lineage, Math.Max(snapshot ?? 0, status.LastShippedTransaction));
        }
        finally
        {
            DeleteDirectory(directory);
            DeleteDirectory(archive);
            DeleteDirectory(backup);
        }
    }

    /// <summary>
    /// Every object under <paramref name="prefix"/> of <paramref name="from"/> put unchanged into
    /// <paramref name="to"/>, each from its file (a seekable stream: given a stream it cannot seek,
    /// the AWS SDK sends aws-chunked content, which s3rver stores with its chunk headers).
    /// </summary>
    private static async Task CopyObjectsAsync(DirectoryArchiveDestination from, IArchiveDestination to, string prefix)
    {
        await foreach (var item in from.ListAsync(prefix).ConfigureAwait(false))
        {
            var path = Path.Combine(from.Description, item.Key.Replace('/', Path.DirectorySeparatorChar));
            await using var content = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.Asynchronous);
            await to.PutIfAbsentAsync(item.Key, content, item.Length).ConfigureAwait(false);
        }
    }
}
