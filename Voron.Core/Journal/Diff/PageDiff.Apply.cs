using System.Buffers.Binary;

namespace Voron.Journal.Diff;

/// <summary>
/// Validating and applying a diff read from disk (reader side); see the FORMAT block in
/// PageDiff.cs. Every rule broken is an <see cref="InvalidDataException"/> naming the rule and
/// the diff offset of the range header; the journal reader adds the file and record.
/// </summary>
internal static partial class PageDiff
{
    /// <summary>
    /// Applies <paramref name="diff"/> on top of the previous version held in
    /// <paramref name="target"/> (one page or a run). Bytes outside the diff's ranges are left as
    /// they are: for a diff against zeros (Encoding 2) zero-fill the target first. The diff is
    /// validated (PD1..PD5) before anything is written, so a malformed diff throws
    /// <see cref="InvalidDataException"/> and leaves the target untouched.
    /// </summary>
    public static void Apply(ReadOnlySpan<byte> diff, Span<byte> target)
    {
        Validate(diff, target.Length);

        var at = 0;
        while (at < diff.Length)
        {
            var (offset, length) = ReadHeader(diff, at);
            at += RangeHeaderSize;
            if (length > 0)
            {
                diff.Slice(at, length).CopyTo(target.Slice((int)offset, length));
                at += length;
            }
            else
            {
                target.Slice((int)offset, -length).Clear();
            }
        }
    }

    /// <summary>
    /// Checks PD1..PD5 of <paramref name="diff"/> against a target of <paramref name="targetLength"/>
    /// bytes, writing nothing. Apply calls it; the journal reader may call it to reject a record
    /// before applying any of its entries.
    /// </summary>
    public static void Validate(ReadOnlySpan<byte> diff, int targetLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(targetLength);

        long previousEnd = 0;
        var at = 0;
        while (at < diff.Length)
        {
            // Each step consumes at least a header, so this loop ends.
            if (diff.Length - at < RangeHeaderSize)
            {
                throw Broken("PD1", at, $"{diff.Length - at} bytes remain where a {RangeHeaderSize}-byte range header starts");
            }

            var (offset, length) = ReadHeader(diff, at);
            if (length == 0)
            {
                throw Broken("PD2", at, $"the range at target offset {offset} has length 0");
            }

            if (offset < previousEnd)
            {
                throw Broken("PD3", at, $"the range at target offset {offset} starts before the previous range's end {previousEnd}");
            }

            long count = Math.Abs((long)length);
            if (offset + count > targetLength)
            {
                throw Broken("PD4", at,
                    $"the range at target offset {offset} of {count} bytes ends past the target's {targetLength} bytes");
            }

            if (length > 0 && diff.Length - at - RangeHeaderSize < length)
            {
                throw Broken("PD5", at,
                    $"the range at target offset {offset} needs {length} payload bytes, only {diff.Length - at - RangeHeaderSize} remain");
            }

            previousEnd = offset + count;
            at += RangeHeaderSize + Math.Max(length, 0);
        }
    }

    private static (long Offset, int Length) ReadHeader(ReadOnlySpan<byte> diff, int at) =>
        (BinaryPrimitives.ReadUInt32LittleEndian(diff[(at + OffsetOffset)..]),
         BinaryPrimitives.ReadInt32LittleEndian(diff[(at + LengthOffset)..]));

    private static InvalidDataException Broken(string rule, int diffOffset, string reason) =>
        new($"Malformed page diff, rule {rule} broken at diff offset {diffOffset}: {reason}.");
}
