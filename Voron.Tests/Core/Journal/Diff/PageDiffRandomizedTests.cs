using Voron.Journal.Diff;
using static Voron.Tests.Core.Journal.Diff.DiffCheck;

namespace Voron.Tests.Core.Journal.Diff;

/// <summary>
/// Seeded property tests: realistic page edits round-trip with small diffs, and damaged diffs
/// are refused cleanly. Replay a failure with VORON_SEED (see TestSeed.cs).
/// </summary>
public sealed class PageDiffRandomizedTests(ITestOutputHelper output)
{
    private const int Pairs = 4000;
    private const int FuzzedDiffs = 20_000;

    private enum Edit
    {
        ChangeField,
        InsertShifting,
        DeleteShifting,
        ZeroRegion,
        WriteNode,
    }

    [Fact]
    public void Compute_round_trips_realistic_edits_with_small_diffs()
    {
        var seed = TestSeed.Next(output, nameof(Compute_round_trips_realistic_edits_with_small_diffs));
        var random = new Random(seed);
        long totalDiffBytes = 0;
        long fieldOnlyPairs = 0;
        long fieldOnlyDiffBytes = 0;
        for (var pair = 0; pair < Pairs; pair++)
        {
            var context = $"seed {seed}, pair {pair}: ";
            var pages = random.Next(10) == 0 ? random.Next(2, 4) : 1;
            var isNew = random.Next(8) == 0;
            var previous = isNew ? new byte[pages * PageSize] : SlottedPages(random, pages);
            var current = (byte[])previous.Clone();
            var fieldBound = 0L;
            var onlyFields = !isNew && random.Next(3) == 0; // a third of the updates only change a few fields
            var edits = random.Next(1, 6);
            for (var e = 0; e < edits; e++)
            {
                var edit = isNew ? Edit.WriteNode : onlyFields ? Edit.ChangeField : (Edit)random.Next(5);
                fieldBound += ApplyEdit(random, current, edit) + PageDiff.RangeHeaderSize;
            }

            var diff = Compute(previous, current);
            var reference = PositiveOnlyOptimalSize(previous, current);
            if (diff is null)
            {
                Assert.True(reference >= current.Length, $"{context}NotSmaller, but new-byte ranges alone take {reference} bytes");
                continue;
            }

            Assert.True(diff.Length <= reference, $"{context}diff of {diff.Length} bytes, new-byte ranges alone take {reference}");
            Assert.True(Apply(diff, previous).AsSpan().SequenceEqual(current), $"{context}the applied diff differs from the new version");
            var ranges = Ranges(diff);
            foreach (var (first, second) in ranges.Zip(ranges.Skip(1)))
            {
                // Ranges touch (a zero run split out) or leave a gap a header would not beat.
                var gap = second.Offset - (first.Offset + (uint)Math.Abs(first.Length));
                Assert.True(gap == 0 || gap >= PageDiff.RangeHeaderSize, $"{context}a gap of {gap} bytes before offset {second.Offset}");
            }

            if (onlyFields)
            {
                // A few changed fields cost at most a header each plus their bytes.
                Assert.True(diff.Length <= fieldBound, $"{context}diff of {diff.Length} bytes for edits bounded by {fieldBound}");
                fieldOnlyPairs++;
                fieldOnlyDiffBytes += diff.Length;
            }

            if (isNew)
            {
                var againstZeros = new byte[current.Length];
                var size = PageDiff.ComputeAgainstZeros(current, againstZeros);
                Assert.True(diff.AsSpan().SequenceEqual(againstZeros.AsSpan(0, size)), $"{context}ComputeAgainstZeros differs from Compute against a zero page");
            }

            totalDiffBytes += diff.Length;
        }

        output.WriteLine($"{Pairs} pairs: {totalDiffBytes} diff bytes; field-only edits: {fieldOnlyPairs} pairs, " +
                         $"{(fieldOnlyPairs == 0 ? 0 : fieldOnlyDiffBytes / fieldOnlyPairs)} bytes on average");
    }

    [Fact]
    public void Apply_of_every_later_diff_yields_the_last_version_when_the_page_starts_newer_or_torn()
    {
        // The replay property of the FORMAT block: recovery may find a data file page flushed
        // from a later version than its first journaled diff expects, or torn between versions.
        var seed = TestSeed.Next(output, nameof(Apply_of_every_later_diff_yields_the_last_version_when_the_page_starts_newer_or_torn));
        var random = new Random(seed);
        for (var history = 0; history < 300; history++)
        {
            var versions = new List<byte[]> { SlottedPages(random, 1) };
            for (var v = random.Next(1, 8); v > 0; v--)
            {
                var next = (byte[])versions[^1].Clone();
                for (var e = random.Next(1, 4); e > 0; e--)
                {
                    ApplyEdit(random, next, (Edit)random.Next(5));
                }

                versions.Add(next);
            }

            // Each 512-byte sector (or each byte) holds its value in some version.
            var page = new byte[PageSize];
            var grain = random.Next(2) == 0 ? 512 : 1;
            for (var at = 0; at < PageSize; at += grain)
            {
                versions[random.Next(versions.Count)].AsSpan(at, grain).CopyTo(page.AsSpan(at));
            }

            for (var v = 1; v < versions.Count; v++)
            {
                var diff = Compute(versions[v - 1], versions[v]);
                if (diff is null)
                {
                    versions[v].CopyTo(page, 0); // stored as a full image
                }
                else
                {
                    PageDiff.Apply(diff, page);
                }
            }

            Assert.True(page.AsSpan().SequenceEqual(versions[^1]), $"seed {seed}, history {history}: replay did not reach the last version");
        }
    }

    [Fact]
    public void Apply_succeeds_or_throws_InvalidDataException_when_diff_bytes_are_damaged()
    {
        var seed = TestSeed.Next(output, nameof(Apply_succeeds_or_throws_InvalidDataException_when_diff_bytes_are_damaged));
        var random = new Random(seed);
        var refused = 0;
        for (var i = 0; i < FuzzedDiffs; i++)
        {
            var previous = SlottedPages(random, 1);
            var current = (byte[])previous.Clone();
            for (var e = random.Next(1, 4); e > 0; e--)
            {
                ApplyEdit(random, current, (Edit)random.Next(5));
            }

            var diff = Compute(previous, current);
            if (diff is null || diff.Length == 0)
            {
                continue;
            }

            var damaged = Damage(random, diff);
            var target = (byte[])previous.Clone();
            try
            {
                PageDiff.Apply(damaged, target);
            }
            catch (InvalidDataException)
            {
                refused++;
                Assert.True(target.AsSpan().SequenceEqual(previous), $"seed {seed}, diff {i}: a refused diff changed the target");
            }
            catch (Exception e)
            {
                Assert.Fail($"seed {seed}, diff {i}: Apply threw {e.GetType().Name}: {e.Message}");
            }
        }

        output.WriteLine($"{FuzzedDiffs} damaged diffs, {refused} refused");
        Assert.True(refused > 0, $"seed {seed}: no damaged diff was refused");
    }

    /// <summary>A copy of <paramref name="diff"/> with a few bytes flipped, a header field set to an edge value, or its length changed.</summary>
    private static byte[] Damage(Random random, byte[] diff)
    {
        var damaged = (byte[])diff.Clone();
        switch (random.Next(4))
        {
            case 0:
                for (var flips = random.Next(1, 4); flips > 0; flips--)
                {
                    damaged[random.Next(damaged.Length)] ^= (byte)random.Next(1, 256);
                }

                return damaged;
            case 1:
                var headers = HeaderOffsets(diff);
                var header = headers[random.Next(headers.Count)];
                int[] edges = [0, 1, -1, PageSize, PageSize - 1, -PageSize, int.MaxValue, int.MinValue, -PageSize - 1];
                var field = header + (random.Next(2) == 0 ? PageDiff.OffsetOffset : PageDiff.LengthOffset);
                BinaryPrimitives.WriteInt32LittleEndian(damaged.AsSpan(field), edges[random.Next(edges.Length)]);
                return damaged;
            case 2:
                return damaged[..random.Next(damaged.Length)];
            default:
                return [.. damaged, .. RandomBytes(random, random.Next(1, 20))];
        }
    }

    private static List<int> HeaderOffsets(ReadOnlySpan<byte> diff)
    {
        var offsets = new List<int>();
        var at = 0;
        foreach (var (_, length) in Ranges(diff))
        {
            offsets.Add(at);
            at += PageDiff.RangeHeaderSize + Math.Max(length, 0);
        }

        return offsets;
    }

    /// <summary>
    /// Pages shaped like tree pages: a header with small integers, a slot array of ushorts,
    /// free space (zeros, or garbage left by earlier versions), node bodies of text and binary
    /// fields packed against the end. An overflow run's later pages are value bytes.
    /// </summary>
    private static byte[] SlottedPages(Random random, int pages)
    {
        var bytes = new byte[pages * PageSize];
        var page = bytes.AsSpan(0, PageSize);
        BinaryPrimitives.WriteInt64LittleEndian(page, random.Next(1, 1_000_000));
        random.NextBytes(page.Slice(8, 4));
        page[12] = 1;
        var lower = 64;
        var upper = PageSize;
        var fill = random.Next(200, PageSize - 64);
        while (PageSize - upper < fill)
        {
            var size = random.Next(12, 600);
            if (upper - size < lower + 2)
            {
                break;
            }

            upper -= size;
            FillNode(random, page.Slice(upper, size));
            BinaryPrimitives.WriteUInt16LittleEndian(page[lower..], (ushort)upper);
            lower += 2;
        }

        BinaryPrimitives.WriteUInt16LittleEndian(page[14..], (ushort)lower);
        BinaryPrimitives.WriteUInt16LittleEndian(page[16..], (ushort)upper);
        if (random.Next(2) == 0)
        {
            FillNode(random, page[lower..upper]);
        }

        if (pages > 1)
        {
            FillNode(random, bytes.AsSpan(PageSize, random.Next(1, bytes.Length - PageSize)));
        }

        return bytes;
    }

    /// <summary>Text, small little-endian integers (zero high bytes) and random binary, in runs.</summary>
    private static void FillNode(Random random, Span<byte> node)
    {
        var at = 0;
        while (at < node.Length)
        {
            var run = Math.Min(node.Length - at, random.Next(1, 64));
            var target = node.Slice(at, run);
            switch (random.Next(3))
            {
                case 0:
                    for (var i = 0; i < target.Length; i++)
                    {
                        target[i] = (byte)random.Next('a', 'z' + 1);
                    }

                    break;
                case 1:
                    for (var i = 0; i + 4 <= target.Length; i += 4)
                    {
                        BinaryPrimitives.WriteInt32LittleEndian(target[i..], random.Next(1000));
                    }

                    break;
                default:
                    random.NextBytes(target);
                    break;
            }

            at += run;
        }
    }

    /// <summary>Applies one edit and returns how many bytes it wrote (for the field-change bound).</summary>
    private static int ApplyEdit(Random random, byte[] current, Edit edit)
    {
        var length = current.Length;
        switch (edit)
        {
            case Edit.ChangeField:
            {
                var size = random.Next(1, 17);
                var at = random.Next(length - size + 1);
                random.NextBytes(current.AsSpan(at, size));
                return size;
            }

            case Edit.InsertShifting:
            case Edit.DeleteShifting:
            {
                // Bytes of [from, to) move by `by` (a slot array or node area growing or shrinking).
                var by = random.Next(1, 200);
                var from = random.Next(length - by);
                var to = Math.Min(length, from + by + random.Next(1, 3000));
                if (edit == Edit.InsertShifting)
                {
                    current.AsSpan(from, to - from - by).CopyTo(current.AsSpan(from + by));
                    FillNode(random, current.AsSpan(from, by));
                }
                else
                {
                    current.AsSpan(from + by, to - from - by).CopyTo(current.AsSpan(from));
                    current.AsSpan(to - by, by).Clear();
                }

                return to - from;
            }

            case Edit.ZeroRegion:
            {
                var size = random.Next(1, 3000);
                var at = random.Next(length - size + 1);
                current.AsSpan(at, size).Clear();
                return size;
            }

            default:
            {
                var size = random.Next(16, 1100);
                var at = random.Next(length - size + 1);
                FillNode(random, current.AsSpan(at, size));
                return size;
            }
        }
    }
}
