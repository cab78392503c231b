using System.Diagnostics;
using Voron.LoadTests.Measurement;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ToolsExperiment
{
    /// <summary>One timed run: what ran, in which round, how long, and the bytes (or documents) it handled.</summary>
    private sealed record ToolRun(string Method, int Round, double Seconds, long Bytes, long Documents);

    /// <summary>
    /// <c>voron check</c> and <c>cat</c> of every file of the closed store to /dev/null, interleaved
    /// (the order reversed every other round), then <c>voron export</c> of every document to a
    /// counting sink. A first untimed cat warms the page cache, so every run reads from memory.
    /// </summary>
    private static async Task MeasureCheckAndExportAsync(ExperimentContext context, Report report, string store, long storeBytes, int documents, int rounds)
    {
        var cat = PlainCopy.Find("cat");
        var methods = new List<string> { Check };
        if (cat != null)
        {
            methods.Add(Cat);
            CatFiles(cat, store); // warm the page cache: both read memory, not the disk
        }
        else
        {
            const string missing = "cat is not on the PATH: the raw-read baseline and check's ratio to it are skipped.";
            context.Output.WriteLine(missing);
            report.AddNote(missing);
        }

        methods.Add(Export);
        var runs = new List<ToolRun>();
        for (var round = 1; round <= rounds; round++)
        {
            var order = round % 2 == 1 ? methods : Enumerable.Reverse(methods).ToList();
            foreach (var method in order)
            {
                var watch = Stopwatch.StartNew();
                long bytes = storeBytes;
                switch (method)
                {
                    case Check:
                        await RunToolAsync(null, "check", store).ConfigureAwait(false);
                        break;
                    case Cat:
                        CatFiles(cat!, store);
                        break;
                    default:
                        var counter = new CountingStream();
                        await RunToolAsync(counter, "export", store).ConfigureAwait(false);
                        bytes = counter.Bytes;
                        break;
                }

                var run = new ToolRun(method, round, watch.Elapsed.TotalSeconds, bytes, method == Export ? documents : 0);
                runs.Add(run);
                context.Progress($"round {round} of {rounds}, {method,-16}: {run.Seconds:F2} s, {MBps(run.Bytes, run.Seconds):N0} MB/s" +
                                 (method == Export ? $", {documents / run.Seconds:N0} documents/s" : ""));
                report.AddRow(("table", RunsTable), ("method", method), ("round", round), ("seconds", run.Seconds),
                    ("MBps", MBps(run.Bytes, run.Seconds)), ("documentsPerSecond", method == Export ? documents / run.Seconds : null));
            }
        }

        var catSeconds = runs.Any(r => r.Method == Cat) ? Median(runs.Where(r => r.Method == Cat).Select(r => r.Seconds)) : (double?)null;
        foreach (var method in methods)
        {
            var mine = runs.Where(r => r.Method == method).ToList();
            var seconds = Median(mine.Select(r => r.Seconds));
            var bytes = mine[0].Bytes;
            double? vsCat = method == Check && catSeconds is { } c ? c / seconds : null;
            double? perSecond = method == Export ? documents / seconds : null;
            report.AddRow(
                ("table", ThroughputTable),
                ("method", method),
                ("runs", mine.Count),
                ("medianSeconds", seconds),
                ("MB", bytes / 1e6),
                ("MBps", MBps(bytes, seconds)),
                ("documentsPerSecond", perSecond),
                ("vsCat", vsCat),
                ("target", method == Check ? $">= {CheckTarget}x cat" : method == Export ? $">= {ExportTarget:N0} documents/s" : null),
                ("met", method == Check ? vsCat >= CheckTarget : method == Export ? perSecond >= ExportTarget : null));
        }

        report.AddNote($"throughput: medians of {rounds} interleaved runs (the order reversed every other round) on the closed store of {storeBytes / 1e6:N0} MB " +
                       "(every file: data file, headers, journal). check: `voron check <store>` in this process — opening the store, every page's checksum and every tree's invariants, " +
                       "documents against indexes, closing; MB/s is the store's bytes over its time. cat: `cat <every file> > /dev/null`, the same bytes. " +
                       "Both read a warm page cache (the store fits in memory and a first cat is not timed): this compares CPU work per byte, not the disk. " +
                       "export: `voron export <store>` to a byte-counting sink; MB is the JSON Lines written. " +
                       $"Issue 26's targets: check at least {CheckTarget}x cat's MB/s; export at least {ExportTarget:N0} documents/s.");
    }

    private static void CatFiles(string cat, string store)
    {
        var files = Directory.GetFiles(store, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToList();
        var start = new ProcessStartInfo("/bin/sh") { UseShellExecute = false, RedirectStandardError = true };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add("\"$0\" \"$@\" > /dev/null");
        start.ArgumentList.Add(cat);
        foreach (var file in files)
        {
            start.ArgumentList.Add(file);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("could not start cat");
        var error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"cat exited with {process.ExitCode}: {error}");
        }
    }

    /// <summary>A write-only sink that counts the bytes written to it.</summary>
    private sealed class CountingStream : Stream
    {
        public long Bytes { get; private set; }

        public override bool CanRead => false;
        public override bool CanSeek => false;
        public override bool CanWrite => true;
        public override long Length => Bytes;
        public override long Position { get => Bytes; set => throw new NotSupportedException(); }
        public override void Flush() { }
        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => Bytes += count;
        public override void Write(ReadOnlySpan<byte> buffer) => Bytes += buffer.Length;
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Bytes += buffer.Length;
            return ValueTask.CompletedTask;
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            Bytes += count;
            return Task.CompletedTask;
        }
    }
}
