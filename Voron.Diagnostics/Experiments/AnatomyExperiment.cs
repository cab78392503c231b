using System.Buffers.Binary;
using System.Globalization;
using Voron.Header;
using Voron.Journal;
using Voron.LoadTests.Data;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// What a journal is made of (why <c>sections</c>' random inserts write more journal bytes than its
/// sequential ones): the <c>sections</c> inserts — 16-byte keys in key order or random, random
/// 100-byte values, 100 per durable transaction — into a store that does not flush to the data file
/// while they run, then every record of its journal read back with the recovery reader: record
/// bytes (the 4 KiB alignment included), entries by encoding (a diff against the page's previous
/// version, a diff against zeros — a page new in this transaction —, a full image), their decoded
/// bytes, the diffs' range headers and payload, and how many entries rewrite a page an earlier
/// record of the same run wrote (a page touched again). Settings: <c>VORON_ANATOMY_N</c> (items,
/// default 50,000; 10,000 with --quick).
/// </summary>
internal sealed class AnatomyExperiment : IExperiment
{
    private readonly int? _items;
    private readonly int? _operations;

    /// <param name="items">Items of the insert workloads; default from the environment (tests pass a few).</param>
    /// <param name="operations">Operations of the merged workloads; default from the environment.</param>
    public AnatomyExperiment(int? items = null, int? operations = null)
    {
        _items = items;
        _operations = operations;
    }

    public string Name => "anatomy";

    public string Description => "journal anatomy of sequential and random inserts: records, entries by encoding, diff ranges, alignment";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var items = _items ?? (int.TryParse(Environment.GetEnvironmentVariable("VORON_ANATOMY_N"), NumberStyles.Integer, CultureInfo.InvariantCulture, out var n) && n > 0
            ? n
            : context.Quick ? 10_000 : 50_000);
        var report = context.NewReport(Name, "Journal anatomy: sequential against random inserts");
        report.AddFact("items", items);
        var only = Environment.GetEnvironmentVariable("VORON_ANATOMY_ONLY");
        if (only is null or "inserts")
        {
            foreach (var sequential in new[] { true, false })
            {
                Run(context, report, items, sequential);
            }
        }

        var operations = _operations ?? (int.TryParse(Environment.GetEnvironmentVariable("VORON_ANATOMY_MERGE_OPS"), NumberStyles.Integer, CultureInfo.InvariantCulture, out var m) && m > 0
            ? m
            : context.Quick ? 10_000 : 40_000);
        report.AddFact("mergeOperations", operations);
        if (only is null or "merge")
        {
            foreach (var pattern in KeyPattern.All)
            {
                RunMerged(context, report, operations, pattern);
            }
        }

        return Task.FromResult(report);
    }

    /// <summary>
    /// <c>merge</c>'s closed loop at 256 callers, counted instead of timed: each caller puts 1 KiB
    /// values under its own keys (sequential or random, <see cref="KeyPattern"/>) through the merger,
    /// one at a time; the store does not flush meanwhile, so every record stays in the journal.
    /// </summary>
    private static void RunMerged(ExperimentContext context, Report report, int operations, KeyPattern pattern)
    {
        const int callers = 256;
        var name = "merge-" + pattern.Name;
        var directory = context.NewDirectory("anatomy-" + name);
        var options = context.Disk.VoronOptions(directory);
        var flushing = Environment.GetEnvironmentVariable("VORON_ANATOMY_FLUSH") == "1"; // merge's own flush cadence: nothing is read back
        if (!flushing)
        {
            options.FlushInterval = TimeSpan.FromHours(1);
            options.FlushThresholdBytes = 1L << 40;
        }

        var watch = System.Diagnostics.Stopwatch.StartNew();
        var cpu = Environment.CpuUsage.TotalTime;
        using (var env = StorageEnvironment.Open(options))
        {
            env.ExecuteAsync(tx => tx.CreateTree("t")).GetAwaiter().GetResult();
            var tasks = Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
            {
                var value = MergeExperiment.Value(caller); // as merge's callers: 1 KiB of random bytes, fixed per caller
                for (var i = 0L; i < operations / callers; i++)
                {
                    var key = pattern.Key(caller, i);
                    await env.ExecuteAsync(tx => tx.OpenTree("t")!.Put(key, value)).ConfigureAwait(false);
                }
            })).ToArray();
            Task.WaitAll(tasks);
            if (flushing)
            {
                env.FlushToDataFile(); // the work the operations left, inside the CPU figure (merge's settle)
            }

            var done = operations / callers * callers;
            context.Progress(string.Format(CultureInfo.InvariantCulture, "anatomy {0}: {1:N0} ops in {2:F2} s ({3:N0}/s), {4:F0} us of CPU per op",
                name, done, watch.Elapsed.TotalSeconds, done / watch.Elapsed.TotalSeconds, (Environment.CpuUsage.TotalTime - cpu).TotalMicroseconds / done));
            if (!flushing)
            {
                Read(report, name, options, directory, done);
            }
        }

        context.Progress($"anatomy {name}: done");
    }

    private static void Run(ExperimentContext context, Report report, int items, bool sequential)
    {
        var name = sequential ? "seq-insert" : "random-insert";
        var directory = context.NewDirectory("anatomy-" + name);
        var files = new CountingFileSystem(Platform.Posix.PosixFileSystem.Instance);
        var options = StorageEnvironmentOptions.ForFileSystem(Path.GetFullPath(directory), context.Disk.Wrap(files));
        var flushPages = int.TryParse(Environment.GetEnvironmentVariable("VORON_ANATOMY_FLUSH_PAGES"), NumberStyles.Integer, CultureInfo.InvariantCulture, out var f) ? f : 0;
        options.BackgroundFlush = false; // sections' inserts flush where the workload says, or (0) never
        var random = new Random(SectionsExperiment.Seed);
        UInt128 next = 0;
        using (var env = StorageEnvironment.Open(options))
        {
            for (var done = 0; done < items;)
            {
                using var tx = env.BeginWrite();
                var tree = tx.CreateTree("items");
                for (var i = 0; i < 100 && done < items; i++, done++)
                {
                    var key = new byte[16];
                    BinaryPrimitives.WriteUInt128BigEndian(key, sequential ? next++ : new UInt128((ulong)random.NextInt64(), (ulong)random.NextInt64()));
                    var value = new byte[100];
                    random.NextBytes(value);
                    tree.Put(key, value);
                }

                tx.Commit();
                if (flushPages > 0 && env.PageTable.PageCount >= flushPages)
                {
                    env.FlushToDataFile(); // as sections does: its journal files are released, so none is read back below
                }
            }

            var journalWritten = files.BytesWritten(p => p.EndsWith(".journal", StringComparison.Ordinal));
            context.Progress($"anatomy {name}: {journalWritten / 1048576.0:F1} MiB written to journal files (records and zero pre-fill), flushing every {flushPages} pages (0: never)");
            report.AddFact($"journalFileBytesWritten.{name}.flushPages{flushPages}", journalWritten);
            if (flushPages == 0)
            {
                Read(report, name, options, directory, items);
            }
        }

        context.Progress($"anatomy {name}: done");
    }

    private static void Read(Report report, string name, StorageEnvironmentOptions options, string directory, long operations)
    {
        // What a flush every W seconds would write to the data file: the distinct pages of the
        // records committed in each window, at 8 KiB each (the flusher writes whole pages).
        double[] windows = [1, 10, double.PositiveInfinity];
        var windowPages = new HashSet<long>[windows.Length];
        long firstCommit = -1, lastCommit = 0;
        var windowStart = new long[windows.Length];
        var flushedPages = new long[windows.Length];
        for (var w = 0; w < windows.Length; w++)
        {
            windowPages[w] = [];
            windowStart[w] = -1;
        }

        var fileSystem = options.FileSystem;
        var layout = new StoreLayout(directory);
        var header = HeaderFile.ReadNewest(fileSystem, layout) ?? throw new InvalidOperationException("no header");
        long records = 0, recordBytes = 0, entries = 0, decoded = 0, ranges = 0, rangeHeaderBytes = 0, repeated = 0;
        var byEncoding = new Dictionary<JournalPageEncoding, (long Entries, long Bytes)>();
        var seen = new HashSet<long>();
        long[] limits = [128, 256, 512, 1024, 2048, 4096, int.MaxValue];
        var bucketEntries = new long[limits.Length];
        var bucketBytes = new long[limits.Length];
        JournalReader.Recover(fileSystem, layout.JournalDirectory, header.StoreId, new JournalPosition(header.JournalFile, header.JournalOffset),
            header.LastSyncedTxId + 1, record =>
            {
                records++;
                firstCommit = firstCommit < 0 ? record.CommitTime : firstCommit;
                lastCommit = record.CommitTime;
                for (var w = 0; w < windows.Length; w++)
                {
                    if (windowStart[w] < 0)
                    {
                        windowStart[w] = record.CommitTime;
                    }
                    else if (record.CommitTime - windowStart[w] >= windows[w] * 1000)
                    {
                        flushedPages[w] += windowPages[w].Count;
                        windowPages[w].Clear();
                        windowStart[w] = record.CommitTime;
                    }

                    foreach (var page in record.Pages)
                    {
                        for (var p = 0; p < page.PageCount; p++)
                        {
                            windowPages[w].Add(page.PageNumber + p);
                        }
                    }
                }

                recordBytes += record.End.FileNumber == record.Start.FileNumber ? record.End.Offset - record.Start.Offset : record.End.Offset;
                foreach (var page in record.Pages)
                {
                    entries++;
                    decoded += page.Bytes.Length;
                    var (count, bytes) = byEncoding.GetValueOrDefault(page.Encoding);
                    byEncoding[page.Encoding] = (count + 1, bytes + page.Bytes.Length);
                    if (!seen.Add(page.PageNumber))
                    {
                        repeated++;
                    }

                    if (page.Encoding == JournalPageEncoding.DiffAgainstPrevious)
                    {
                        var bucket = Array.FindIndex(limits, l => page.Bytes.Length <= l);
                        bucketEntries[bucket]++;
                        bucketBytes[bucket] += page.Bytes.Length;
                    }

                    if (page.Encoding is JournalPageEncoding.DiffAgainstPrevious or JournalPageEncoding.DiffAgainstZeros)
                    {
                        var span = page.Bytes.Span;
                        for (var at = 0; at + 8 <= span.Length;)
                        {
                            var length = BinaryPrimitives.ReadInt32LittleEndian(span[(at + 4)..]);
                            ranges++;
                            rangeHeaderBytes += 8;
                            at += 8 + Math.Max(0, length);
                        }
                    }
                }
            });

        for (var w = 0; w < windows.Length; w++)
        {
            flushedPages[w] += windowPages[w].Count;
        }

        report.AddRow(
            ("workload", name),
            ("operations", operations),
            ("opsPerSecond", lastCommit > firstCommit ? Math.Round(operations * 1000.0 / (lastCommit - firstCommit)) : 0),
            ("journalBytesPerOp", Math.Round(recordBytes / (double)operations)),
            ("dataFileBytesPerOp flushing every 1 s / 10 s / once", string.Join(" / ", flushedPages.Select(p => Math.Round(p * 8192.0 / operations).ToString(CultureInfo.InvariantCulture)))),
            ("records", records),
            ("recordKiB", Math.Round(recordBytes / 1024.0, 1)),
            ("bytesPerRecord", records == 0 ? 0 : recordBytes / records),
            ("entriesPerRecord", records == 0 ? 0 : Math.Round(entries / (double)records, 1)),
            ("decodedBytesPerEntry", entries == 0 ? 0 : decoded / entries),
            ("decodedKiB", Math.Round(decoded / 1024.0, 1)),
            ("diffEntries", byEncoding.GetValueOrDefault(JournalPageEncoding.DiffAgainstPrevious).Entries),
            ("diffKiB", Math.Round(byEncoding.GetValueOrDefault(JournalPageEncoding.DiffAgainstPrevious).Bytes / 1024.0, 1)),
            ("newPageEntries", byEncoding.GetValueOrDefault(JournalPageEncoding.DiffAgainstZeros).Entries),
            ("newPageKiB", Math.Round(byEncoding.GetValueOrDefault(JournalPageEncoding.DiffAgainstZeros).Bytes / 1024.0, 1)),
            ("fullEntries", byEncoding.GetValueOrDefault(JournalPageEncoding.FullImage).Entries),
            ("fullKiB", Math.Round(byEncoding.GetValueOrDefault(JournalPageEncoding.FullImage).Bytes / 1024.0, 1)),
            ("rangesPerDiff", entries == 0 ? 0 : Math.Round(ranges / (double)entries, 1)),
            ("rangeHeaderKiB", Math.Round(rangeHeaderBytes / 1024.0, 1)),
            ("pagesTouchedAgain", repeated),
            ("distinctPages", seen.Count),
            ("diffSizes (entries / KiB by size: <=128, 256, 512, 1K, 2K, 4K, more)",
                string.Join("; ", bucketEntries.Select((e, i) => $"{e} / {bucketBytes[i] / 1024}"))));
    }
}
