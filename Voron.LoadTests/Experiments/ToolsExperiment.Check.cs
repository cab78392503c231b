using System.Text.Json;
using Voron.LoadTests.Measurement.Interop;

namespace Voron.LoadTests.Experiments;

internal sealed partial class ToolsExperiment
{
    /// <summary>One timed run: what ran, in which round, how long, and the bytes (or documents) it handled; for check, its pages-and-trees and documents stages' seconds.</summary>
    private sealed record ToolRun(string Method, int Round, double Seconds, long Bytes, long Documents, double? PagesSeconds = null, double? DocumentsSeconds = null);

    /// <summary>
    /// <c>voron check</c> and <c>cat</c> of every file of the closed store to /dev/null, warm (an
    /// untimed cat before the run) and cold (the files dropped from the page cache before the run),
    /// and <c>voron export</c> of every document to a counting sink, interleaved (the order
    /// reversed every other round).
    /// </summary>
    private static async Task MeasureCheckAndExportAsync(ExperimentContext context, Report report, string store, long storeBytes, int documents, int rounds)
    {
        var cat = PlainCopy.Find("cat");
        var cold = OperatingSystem.IsLinux();
        var methods = new List<string> { Check };
        if (cat != null)
        {
            methods.Add(Cat);
        }
        else
        {
            const string missing = "cat is not on the PATH: the raw-read baseline and check's ratio to it are skipped.";
            context.Output.WriteLine(missing);
            report.AddNote(missing);
        }

        if (cold)
        {
            methods.Add(CheckCold);
            if (cat != null)
            {
                methods.Add(CatCold);
            }
        }

        methods.Add(Export);
        var runs = new List<ToolRun>();
        for (var round = 1; round <= rounds; round++)
        {
            var order = round % 2 == 1 ? methods : Enumerable.Reverse(methods).ToList();
            foreach (var method in order)
            {
                if (method is CheckCold or CatCold)
                {
                    PageCache.Evict(store); // not timed: the run reads the disk
                }
                else if (cat != null)
                {
                    CatFiles(cat, store); // not timed: the run reads memory
                }

                var watch = Stopwatch.StartNew();
                long bytes = storeBytes;
                string? checkJson = null;
                switch (method)
                {
                    case Check or CheckCold:
                        checkJson = await RunToolAsync(null, "check", store, "--json").ConfigureAwait(false);
                        break;
                    case Cat or CatCold:
                        CatFiles(cat!, store);
                        break;
                    default:
                        var counter = new CountingStream();
                        await RunToolAsync(counter, "export", store).ConfigureAwait(false);
                        bytes = counter.Bytes;
                        break;
                }

                var seconds = watch.Elapsed.TotalSeconds;
                var (pages, docs) = checkJson is null ? (null, null) : StageSeconds(checkJson);
                var run = new ToolRun(method, round, seconds, bytes, method == Export ? documents : 0, pages, docs);
                runs.Add(run);
                context.Progress($"round {round} of {rounds}, {method,-23}: {run.Seconds:F2} s, {MBps(run.Bytes, run.Seconds):N0} MB/s" +
                                 (method == Export ? $", {documents / run.Seconds:N0} documents/s" : "") +
                                 (pages is { } p && docs is { } d ? $" (pages and trees {p:F2} s, documents {d:F2} s)" : ""));
                report.AddRow(("table", RunsTable), ("method", method), ("round", round), ("seconds", run.Seconds),
                    ("MBps", MBps(run.Bytes, run.Seconds)), ("documentsPerSecond", method == Export ? documents / run.Seconds : null),
                    ("pagesSeconds", pages), ("documentsSeconds", docs));
            }
        }

        double? MedianOf(string method) => runs.Any(r => r.Method == method) ? Median.Of(runs.Where(r => r.Method == method).Select(r => r.Seconds)) : null;
        foreach (var method in methods)
        {
            var mine = runs.Where(r => r.Method == method).ToList();
            var seconds = Median.Of(mine.Select(r => r.Seconds));
            var bytes = mine[0].Bytes;
            var isCheck = method is Check or CheckCold;
            var catSeconds = MedianOf(method == CheckCold ? CatCold : Cat);
            double? vsCat = isCheck && catSeconds is { } c ? c / seconds : null;
            double? pagesSeconds = isCheck ? Median.Of(mine.Select(r => r.PagesSeconds ?? double.NaN)) : null;
            double? documentsSeconds = isCheck ? Median.Of(mine.Select(r => r.DocumentsSeconds ?? double.NaN)) : null;
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
                ("pagesSeconds", pagesSeconds),
                ("pagesVsCat", pagesSeconds is { } ps && catSeconds is { } cs ? cs / ps : null),
                ("documentsSeconds", documentsSeconds),
                ("target", isCheck ? $">= {CheckTarget}x cat" : method == Export ? $">= {ExportTarget:N0} documents/s" : null),
                ("met", isCheck ? vsCat >= CheckTarget : method == Export ? perSecond >= ExportTarget : null));
        }

        report.AddNote($"throughput: medians of {rounds} interleaved runs (the order reversed every other round) on the closed store of {storeBytes / 1e6:N0} MB " +
                       "(every file: data file, headers, journal). check: `voron check <store>` in this process — opening the store, every page's checksum and every tree's invariants, " +
                       "documents against indexes, closing; MB/s is the store's bytes over its time. cat: `cat <every file> > /dev/null`, the same bytes. " +
                       "warm: both read the page cache (an untimed cat before each run): CPU work per byte against memory bandwidth. " +
                       "cold: the store's files are dropped from the page cache (posix_fadvise DONTNEED, untimed) before each run, so both read the disk: the issue's raw read throughput. " +
                       "pagesSeconds and documentsSeconds are check's own stage times (its --json): pages and trees (every page in use read and its checksum checked, every tree's invariants) and documents against indexes; pagesVsCat is cat's time over the pages stage's. " +
                       "export: `voron export <store>` to a byte-counting sink; MB is the JSON Lines written. " +
                       $"Targets: check at least {CheckTarget}x cat's MB/s; export at least {ExportTarget:N0} documents/s.");
    }

    /// <summary>The seconds of check's "pages and trees" and "documents" stages, from its --json report.</summary>
    private static (double? Pages, double? Documents) StageSeconds(string json)
    {
        using var document = JsonDocument.Parse(json);
        double? Of(string stage) => document.RootElement.GetProperty("stages").EnumerateArray()
            .Where(s => s.GetProperty("name").GetString() == stage && s.TryGetProperty("seconds", out _))
            .Select(s => (double?)s.GetProperty("seconds").GetDouble()).FirstOrDefault();
        return (Of("pages and trees"), Of("documents"));
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
