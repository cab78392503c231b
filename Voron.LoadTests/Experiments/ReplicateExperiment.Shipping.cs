using Voron.LoadTests.Data;
using Voron.LoadTests.Experiments.Replicate;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ReplicateExperiment
{
    internal const string ShippingSummaryTable = "shipping";
    internal const string ShippingRunsTable = "shipping runs";
    internal const double ShippingTarget = 0.9;

    /// <summary>The variants of the shipping workload, in report order: no destination, then each destination.</summary>
    internal static readonly string[] ShippingVariants = [ArchiveTargets.Off, .. ArchiveTargets.All];

    /// <summary>One timed run: the clock at the last acknowledged commit, after the settle, after the catch-up; what was shipped.</summary>
    private sealed record ShipRun(double WriteSeconds, double SettleSeconds, double CatchUpSeconds, long LastShippedFile, long LastShippedTransaction, long LastTransaction)
    {
        public double TotalSeconds => WriteSeconds + SettleSeconds + CatchUpSeconds;
    }

    /// <summary>
    /// Shipping on against off: at each writer count, in <paramref name="runs"/> runs whose variant
    /// order reverses every other run, a fresh store per variant (open and close not timed) commits
    /// the same transactions, then is settled (<see cref="StorageEnvironment.FlushToDataFile"/>,
    /// which releases the journal files the data file no longer needs into the archive) and, when it
    /// ships, caught up (<see cref="StorageEnvironment.ShipArchiveAsync"/> until nothing released
    /// waits). All of it is timed: commits per second count every second the writes caused.
    /// </summary>
    private async Task MeasureShippingAsync(ExperimentContext context, Report report, ArchiveTargets targets, int runs)
    {
        var writerCounts = _writers is { Length: > 0 } given ? given : context.Quick ? [1, 4] : [1, 16];
        var perWriter = _commits ?? (context.Quick ? 100 : 1_000);
        var values = new RealisticJson(Seed);
        var pool = Enumerable.Range(0, 256).Select(_ => values.Next(ValueBytes, ValueBytes)).ToArray();
        var measured = ShippingVariants.Where(v => targets.WhyNot(v) == null).ToList();
        report.AddFact("shippingCommitsPerWriter", perWriter);
        report.AddFact("shippingWriters", string.Join(",", writerCounts));
        report.AddFact("shippingJournalFileSizeKiB", string.Join(",", writerCounts.Select(w => ShippingJournalFileSize(perWriter * w) >> 10)));
        report.AddFact("shippingValues", $"{ValueBytes}-byte realistic JSON values, 8-byte keys, one put per transaction, every key new");

        // Untimed: the first use of each destination's client (its SDK's start-up) and of the write path.
        context.Progress($"shipping: a warm-up run of each variant ({string.Join(", ", measured)}; not timed)");
        foreach (var variant in measured)
        {
            await ShipOnceAsync(context, targets, variant, writers: 1, Math.Min(perWriter, 200), pool).ConfigureAwait(false);
        }

        var results = new Dictionary<(string Variant, int Writers), List<ShipRun>>();
        for (var run = 1; run <= runs; run++)
        {
            foreach (var writers in writerCounts)
            {
                var commits = perWriter * writers;
                foreach (var variant in InRunOrder(measured, run))
                {
                    var result = await ShipOnceAsync(context, targets, variant, writers, commits, pool).ConfigureAwait(false);
                    (results.TryGetValue((variant, writers), out var list) ? list : results[(variant, writers)] = []).Add(result);
                    context.Progress($"shipping run {run} of {runs}, {writers} writers, {variant,-9}: {commits / result.TotalSeconds:N0} commits/s " +
                                     $"(writes {result.WriteSeconds:F2} s, settle {result.SettleSeconds:F2} s, catch-up {result.CatchUpSeconds:F2} s, shipped through journal file {result.LastShippedFile})");
                    report.AddRow(
                        ("table", ShippingRunsTable),
                        ("variant", variant),
                        ("writers", writers),
                        ("run", run),
                        ("commits", commits),
                        ("commitsPerSec", commits / result.TotalSeconds),
                        ("ackCommitsPerSec", commits / result.WriteSeconds),
                        ("writeSeconds", result.WriteSeconds),
                        ("settleSeconds", result.SettleSeconds),
                        ("catchUpSeconds", variant == ArchiveTargets.Off ? null : result.CatchUpSeconds),
                        ("lastShippedFile", variant == ArchiveTargets.Off ? null : result.LastShippedFile),
                        ("lastShippedTx", variant == ArchiveTargets.Off ? null : result.LastShippedTransaction),
                        ("lastTx", result.LastTransaction));
                }
            }
        }

        foreach (var writers in writerCounts)
        {
            var commits = perWriter * writers;
            double? offRate = results.TryGetValue((ArchiveTargets.Off, writers), out var offRuns) ? commits / Median.Of(offRuns.Select(r => r.TotalSeconds)) : null;
            foreach (var variant in ShippingVariants)
            {
                if (targets.WhyNot(variant) is { } skipped)
                {
                    report.AddRow(("table", ShippingSummaryTable), ("variant", variant), ("writers", writers), ("skipped", skipped));
                    continue;
                }

                var mine = results[(variant, writers)];
                var seconds = Median.Of(mine.Select(r => r.TotalSeconds));
                var rate = commits / seconds;
                var isOn = variant != ArchiveTargets.Off;
                double? vsOff = offRate is { } off ? rate / off : null;
                report.AddRow(
                    ("table", ShippingSummaryTable),
                    ("variant", variant),
                    ("writers", writers),
                    ("runs", mine.Count),
                    ("commitsPerSec", rate),
                    ("minCommitsPerSec", commits / mine.Max(r => r.TotalSeconds)),
                    ("maxCommitsPerSec", commits / mine.Min(r => r.TotalSeconds)),
                    ("ackCommitsPerSec", commits / Median.Of(mine.Select(r => r.WriteSeconds))),
                    ("medianSeconds", seconds),
                    ("settleSeconds", Median.Of(mine.Select(r => r.SettleSeconds))),
                    ("catchUpSeconds", isOn ? Median.Of(mine.Select(r => r.CatchUpSeconds)) : null),
                    ("maxCatchUpSeconds", isOn ? mine.Max(r => r.CatchUpSeconds) : null),
                    ("lastShippedFile", isOn ? mine.Min(r => r.LastShippedFile) : null),
                    ("vsOff", vsOff),
                    ("target", isOn ? $">= {ShippingTarget}x off" : null),
                    ("met", isOn && vsOff is { } ratio ? ratio >= ShippingTarget : null));
            }
        }

        report.AddNote("shipping: each run a fresh store (Durable, journal files small enough that the run releases about eight, shippingJournalFileSizeKiB per writer count; " +
                       $"JournalArchiveDirectory set in every variant) commits {perWriter:N0} transactions per writer, each one put of a new 8-byte key and a {ValueBytes}-byte value through ExecuteAsync (the merger), shared among the writers, each writer " +
                       "awaiting its commit before the next (a commit here is one acknowledged ExecuteAsync: the merger may carry several in one journal write, so lastTx, the store's transactions, can be fewer); then FlushToDataFile (the settle: the data file takes the pages and the journal files it no longer needs go to the archive) and, " +
                       "when the store ships, ShipArchiveAsync until every released file is in the destination (the catch-up; the background pass, every ArchiveShippingInterval = 1 s, ships " +
                       "during the writes too). commitsPerSec: commits over writes + settle + catch-up, the median of the runs (min and max beside it); ackCommitsPerSec: over the writes alone. " +
                       "The newest transactions are in the live journal file until it is released (docs/object-storage.md, Limits): lastShippedTx against lastTx. " +
                       $"vsOff: a destination's commitsPerSec over off's at the same writers. Target: at least {ShippingTarget}x off. Runs interleave the variants, the order reversed every other run; " +
                       "opening and closing the stores and the warm-up run of each variant are not timed.");
    }

    /// <summary>One store, written, settled and (when it ships) caught up; everything from the first commit on is timed.</summary>
    private static async Task<ShipRun> ShipOnceAsync(ExperimentContext context, ArchiveTargets targets, string variant, int writers, int commits, byte[][] pool)
    {
        var directory = context.NewDirectory("ship-store");
        var archive = context.NewDirectory("ship-archive");
        var destination = variant == ArchiveTargets.Off ? null : await targets.OpenAsync(variant).ConfigureAwait(false);
        try
        {
            var options = context.Disk.VoronOptions(directory);
            options.JournalFileSize = ShippingJournalFileSize(commits);
            options.JournalArchiveDirectory = archive;
            options.ArchiveDestination = destination;
            using var environment = StorageEnvironment.Open(options);
            await environment.ExecuteAsync(tx => tx.CreateTree(Tree)).ConfigureAwait(false);
            var watch = Stopwatch.StartNew();
            await Task.WhenAll(Enumerable.Range(0, writers).Select(writer => Task.Run(async () =>
            {
                for (var i = writer; i < commits; i += writers)
                {
                    var key = KvDataSet.Key(i);
                    var value = pool[i % pool.Length];
                    await environment.ExecuteAsync(tx => tx.CreateTree(Tree).Put(key, value)).ConfigureAwait(false);
                }
            }))).ConfigureAwait(false);
            var written = watch.Elapsed.TotalSeconds;
            environment.FlushToDataFile();
            var settled = watch.Elapsed.TotalSeconds;
            ArchiveShippingStatus? status = null;
            if (destination != null)
            {
                status = await environment.ShipArchiveAsync().ConfigureAwait(false);
                if (status.PendingFiles != 0)
                {
                    throw new InvalidOperationException($"shipping to {variant}: {status.PendingFiles} released files still wait after ShipArchiveAsync: {status.LastError}");
                }
            }

            var caughtUp = watch.Elapsed.TotalSeconds;
            return new ShipRun(written, settled - written, caughtUp - settled, status?.LastShippedFile ?? 0,
                status?.LastShippedTransaction ?? 0, environment.LastCommittedTransactionId);
        }
        finally
        {
            (destination as IDisposable)?.Dispose();
            DeleteDirectory(directory);
            DeleteDirectory(archive);
        }
    }

    /// <summary>
    /// Journal files small enough that a run releases about eight of them: a transaction takes at
    /// least one 4 KiB journal write, so commits × 4 KiB / 8, a power of two from 256 KiB to 64 MiB
    /// (the default).
    /// </summary>
    internal static long ShippingJournalFileSize(int commits)
    {
        var wanted = Math.Max(256L << 10, (long)commits * 4096 / 8);
        return Math.Min(64L << 20, 1L << (63 - (int)long.LeadingZeroCount(wanted)));
    }
}
