using System.Diagnostics;
using Voron.Diagnostics.Experiments.Compression;
using Voron.Journal;
using Voron.LoadTests.Experiments;
using Voron.LoadTests.Reporting;

namespace Voron.Diagnostics.Experiments;

/// <summary>
/// LZ4 block compressors side by side (<see cref="Lz4Compressor.All"/>) on the payloads the
/// journal compresses (<see cref="PayloadSet.Capture"/>: the journal, merge and bulk workloads run
/// on real stores, their records captured before compression). For each workload and compressor:
/// the ratio (payload bytes / compressed bytes), the bytes the journal would store under its
/// compression rule (compressed only when that saves a quarter), and compression and
/// decompression speed in MB/s of payload. The compressors run in interleaved rounds over the same
/// payloads, the median round reported, so a slow moment of the machine hits all alike. Every
/// block is decoded by every compressor's decoder and must give back the payload, or the run fails:
/// they all write the same format.
/// </summary>
internal sealed class CompressionExperiment : IExperiment
{
    private readonly int? _documents;

    /// <param name="documents">Documents of the journal workloads; default 20,000 (2,000 with --quick). Tests pass fewer.</param>
    public CompressionExperiment(int? documents = null)
    {
        _documents = documents;
    }

    public string Name => "compression";

    public string Description => "LZ4 compressors on the journal's payloads (journal, merge, bulk workloads): ratio, compression and decompression MB/s";

    public Task<Report> RunAsync(ExperimentContext context)
    {
        var documents = _documents ?? (context.Quick ? 2_000 : 20_000);
        var rounds = context.Quick ? 1 : 7;
        var report = context.NewReport(Name, "LZ4 compressors on journal payloads");
        report.AddFact("documents", documents);
        report.AddFact("rounds", rounds);
        report.AddFact("compressors", string.Join("; ", Lz4Compressor.All.Select(c => $"{c.Name}: {c.Description}")));
        report.AddFact("compressionRule", "the journal keeps a compressed payload only when it saves at least a quarter of the bytes (JournalRecord.CompressionPays)");

        context.Progress($"capturing journal payloads ({documents:N0} documents per journal workload) ...");
        var sets = PayloadSet.Capture(documents, batches: Math.Max(2, documents / 50), bulkTransactions: context.Quick ? 1 : 4);
        foreach (var set in sets)
        {
            context.Progress($"{set.Name,-22} {set.Payloads.Count,6:N0} payloads, {set.Bytes / 1e6,8:F2} MB: {set.Description}");
            report.AddFact("workload." + set.Name, $"{set.Payloads.Count} payloads, {set.Bytes} bytes: {set.Description}");
        }

        foreach (var set in sets.Where(s => s.Payloads.Count > 0))
        {
            var results = Measure(set, rounds);
            foreach (var (compressor, result) in Lz4Compressor.All.Zip(results))
            {
                context.Progress($"{set.Name,-22} {compressor.Name,-10} ratio {result.Ratio,5:F2}, stored {result.StoredRatio,5:F2}, " +
                                 $"compress {result.CompressMBps,8:N0} MB/s, decompress {result.DecompressMBps,8:N0} MB/s");
                report.AddRow(
                    ("workload", set.Name),
                    ("compressor", compressor.Name),
                    ("payloads", set.Payloads.Count),
                    ("meanPayloadBytes", set.Bytes / (double)set.Payloads.Count),
                    ("ratio", result.Ratio),
                    ("storedRatio", result.StoredRatio),
                    ("keptShare", result.KeptShare),
                    ("compressMBps", result.CompressMBps),
                    ("decompressMBps", result.DecompressMBps),
                    ("compressVsFirst", result.CompressMBps / results[0].CompressMBps),
                    ("ratioVsFirst", result.Ratio / results[0].Ratio));
            }
        }

        report.AddNote("ratio: payload bytes / compressed bytes over every payload of the workload. storedRatio: payload bytes / the bytes the journal " +
                       "would store (the compressed form where it saves a quarter, else the payload). keptShare: the share of payloads kept compressed.");
        report.AddNote("compressMBps, decompressMBps: payload bytes per second of one thread, the median of the rounds; MB = 10^6 bytes. " +
                       "compressVsFirst, ratioVsFirst: against the first compressor of the workload.");
        report.AddNote("Payloads are the records' uncompressed payloads as the journal would hand them to LZ4 (page entries, diffs or full pages), " +
                       $"only those of at least {JournalRecord.CompressionThreshold} bytes (smaller ones are never compressed).");
        return Task.FromResult(report);
    }

    /// <summary>Every compressor over the whole set, in <paramref name="rounds"/> interleaved rounds.</summary>
    private static List<Result> Measure(PayloadSet set, int rounds)
    {
        var compressors = Lz4Compressor.All;
        var largest = set.Payloads.Max(p => p.Length);
        var blocks = compressors.Select(_ => new byte[set.Payloads.Count][]).ToArray();
        var target = new byte[Lz4Compressor.MaxCompressedLength(largest)];
        var restored = new byte[largest];
        var compressTimes = compressors.Select(_ => new List<double>()).ToArray();
        var decompressTimes = compressors.Select(_ => new List<double>()).ToArray();
        for (var round = -1; round < rounds; round++) // round -1 warms the code up and keeps the blocks; it is not timed
        {
            for (var c = 0; c < compressors.Count; c++)
            {
                var encode = compressors[c].Encode;
                var start = Stopwatch.GetTimestamp();
                for (var i = 0; i < set.Payloads.Count; i++)
                {
                    var length = encode(set.Payloads[i], target);
                    if (round < 0)
                    {
                        blocks[c][i] = target.AsSpan(0, length).ToArray();
                    }
                }

                if (round >= 0)
                {
                    compressTimes[c].Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
                }

                var decode = compressors[c].Decode;
                start = Stopwatch.GetTimestamp();
                for (var i = 0; i < set.Payloads.Count; i++)
                {
                    decode(blocks[c][i], restored.AsSpan(0, set.Payloads[i].Length));
                }

                if (round >= 0)
                {
                    decompressTimes[c].Add(Stopwatch.GetElapsedTime(start).TotalSeconds);
                }
            }
        }

        CheckEveryDecoderReadsEveryBlock(set, compressors, blocks, restored);
        return [.. compressors.Select((_, c) =>
        {
            long compressed = 0, stored = 0, kept = 0;
            for (var i = 0; i < set.Payloads.Count; i++)
            {
                var raw = set.Payloads[i].Length;
                compressed += blocks[c][i].Length;
                var pays = JournalRecord.CompressionPays(raw, blocks[c][i].Length);
                stored += pays ? blocks[c][i].Length : raw;
                kept += pays ? 1 : 0;
            }

            return new Result(
                set.Bytes / (double)compressed,
                set.Bytes / (double)stored,
                kept / (double)set.Payloads.Count,
                set.Bytes / 1e6 / Median(compressTimes[c]),
                set.Bytes / 1e6 / Median(decompressTimes[c]));
        })];
    }

    /// <summary>The compressors must be interchangeable: each decoder gives back every payload from every compressor's block.</summary>
    private static void CheckEveryDecoderReadsEveryBlock(PayloadSet set, IReadOnlyList<Lz4Compressor> compressors, byte[][][] blocks, byte[] restored)
    {
        for (var c = 0; c < compressors.Count; c++)
        {
            foreach (var decoder in compressors)
            {
                for (var i = 0; i < set.Payloads.Count; i++)
                {
                    var payload = set.Payloads[i];
                    var produced = decoder.Decode(blocks[c][i], restored.AsSpan(0, payload.Length));
                    if (produced != payload.Length || !restored.AsSpan(0, produced).SequenceEqual(payload))
                    {
                        throw new InvalidOperationException(
                            $"{set.Name}: {decoder.Name} did not restore payload {i} ({payload.Length} bytes) from {compressors[c].Name}'s block (got {produced}).");
                    }
                }
            }
        }
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted[sorted.Count / 2];
    }

    private sealed record Result(double Ratio, double StoredRatio, double KeptShare, double CompressMBps, double DecompressMBps);
}
