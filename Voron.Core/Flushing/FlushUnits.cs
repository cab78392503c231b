using System.Buffers.Binary;
using System.Numerics;
using Voron.Journal.Diff;

namespace Voron.Flushing;

/// <summary>
/// FL10: which 4 KiB units of a page (or of an overflow run) a commit changed — a bit per unit,
/// unit i = bytes [i * 4096, (i + 1) * 4096) of the image — so the flush writes only those. 4 KiB
/// because that is the page cache's page on Linux (and the sector of most disks): a write of one
/// half of an 8 KiB page makes the kernel write back 4 KiB, not 8. A page file (T8) stores two
/// SQLite 4 KiB pages per Voron page, so an update of one SQLite page changes one half.
/// <see cref="All"/> (every bit, any length) is the conservative answer wherever the change is
/// not known exactly.
/// </summary>
internal static class FlushUnits
{
    /// <summary>The bytes of one unit.</summary>
    public const int UnitSize = 4096;

    /// <summary>Units per page.</summary>
    public const int PerPage = Constants.PageSize / UnitSize;

    /// <summary>Runs longer than this many units are always written whole (their mask would not fit).</summary>
    public const int MaxTracked = 64;

    /// <summary>Every unit of the image, however long.</summary>
    public const ulong All = ulong.MaxValue;

    /// <summary>The units of an image of <paramref name="imageLength"/> bytes.</summary>
    public static int Count(int imageLength) => imageLength / UnitSize;

    /// <summary>Whether <paramref name="mask"/> marks every unit of an image of <paramref name="imageLength"/> bytes.</summary>
    public static bool IsWhole(ulong mask, int imageLength)
    {
        var units = Count(imageLength);
        return units > MaxTracked || (mask & Every(units)) == Every(units);
    }

    /// <summary>
    /// The units a page diff's ranges (PageDiff.cs's FORMAT; both encodings) touch: every byte a
    /// diff does not cover is unchanged (Compute's guarantee), so unmarked units hold the same
    /// bytes before and after. A run past <see cref="MaxTracked"/> units gives <see cref="All"/>.
    /// The diff is this commit's own, just computed: not validated again.
    /// </summary>
    public static ulong FromDiff(ReadOnlySpan<byte> diff, int imageLength)
    {
        if (Count(imageLength) > MaxTracked)
        {
            return All;
        }

        ulong mask = 0;
        var at = 0;
        while (at + PageDiff.RangeHeaderSize <= diff.Length)
        {
            long offset = BinaryPrimitives.ReadUInt32LittleEndian(diff[(at + PageDiff.OffsetOffset)..]);
            var length = BinaryPrimitives.ReadInt32LittleEndian(diff[(at + PageDiff.LengthOffset)..]);
            var count = Math.Abs((long)length);
            if (count > 0)
            {
                var first = (int)(offset / UnitSize);
                var last = (int)((offset + count - 1) / UnitSize);
                mask |= Range(first, last);
            }

            at += PageDiff.RangeHeaderSize + Math.Max(length, 0);
        }

        return mask;
    }

    /// <summary>Units <paramref name="first"/> to <paramref name="last"/> inclusive (both below 64).</summary>
    private static ulong Range(int first, int last) =>
        (last >= 63 ? All : (1UL << (last + 1)) - 1) & (All << first);

    /// <summary>How many bytes of an image of <paramref name="imageLength"/> bytes the mask writes.</summary>
    public static long BytesOf(ulong mask, int imageLength) =>
        IsWhole(mask, imageLength) ? imageLength : (long)BitOperations.PopCount(mask & Every(Count(imageLength))) * UnitSize;

    /// <summary>The mask of every unit of an image of <paramref name="units"/> units (at most 64).</summary>
    private static ulong Every(int units) => units >= MaxTracked ? All : (1UL << units) - 1;
}
