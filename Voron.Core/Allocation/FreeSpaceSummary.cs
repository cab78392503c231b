using System.Buffers.Binary;
using System.Numerics;

namespace Voron.Allocation;

/// <summary>
/// An in-memory digest of the free-space pages as of one committed transaction: the bitmap page
/// numbers and how many free bits each holds, so allocation does not read every bitmap. Immutable
/// once published; a write transaction works on a copy (<see cref="PageAllocator"/>).
/// </summary>
internal sealed record FreeSpaceSummary(long[] BitmapPages, int[] FreeCounts)
{
    public static FreeSpaceSummary Empty { get; } = new([], []);

    public long FreePages => FreeCounts.Sum(c => (long)c);

    /// <summary>Reads and validates the directory and every bitmap page (rules F1–F3).</summary>
    public static FreeSpaceSummary Load(IAllocatorPages pages, long directoryPage, long nextPageNumber)
    {
        if (directoryPage == 0)
        {
            return Empty;
        }

        var directory = pages.GetPage(directoryPage);
        var count = BinaryPrimitives.ReadInt32LittleEndian(directory[FreeSpaceFormat.CountOffset..]);
        if (FreeSpaceFormat.Kind(directory) != FreeSpaceFormat.DirectoryKind || count < 0 || count > FreeSpaceFormat.MaxBitmapPages)
        {
            throw new CorruptionException(pages.DataFilePath, directoryPage * Constants.PageSize, $"rule F1/F2: free-space directory page {directoryPage} is malformed (count {count})");
        }

        var bitmapPages = new long[count];
        var freeCounts = new int[count];
        for (var k = 0; k < count; k++)
        {
            bitmapPages[k] = BinaryPrimitives.ReadInt64LittleEndian(directory[(FreeSpaceFormat.ListOffset + 8 * k)..]);
            if (bitmapPages[k] <= 0 || bitmapPages[k] >= nextPageNumber)
            {
                throw new CorruptionException(pages.DataFilePath, directoryPage * Constants.PageSize, $"rule F2: free-space directory lists page {bitmapPages[k]}, outside the file");
            }

            var bitmap = pages.GetPage(bitmapPages[k]);
            if (FreeSpaceFormat.Kind(bitmap) != FreeSpaceFormat.BitmapKind ||
                BinaryPrimitives.ReadInt32LittleEndian(bitmap[FreeSpaceFormat.IndexOffset..]) != k)
            {
                throw new CorruptionException(pages.DataFilePath, bitmapPages[k] * Constants.PageSize, $"rule F1/F3: page {bitmapPages[k]} is not free-space bitmap {k}");
            }

            freeCounts[k] = CountBits(bitmap[FreeSpaceFormat.BitsOffset..Constants.PageSize]);
        }

        return new FreeSpaceSummary(bitmapPages, freeCounts);
    }

    internal static int CountBits(ReadOnlySpan<byte> bits)
    {
        var count = 0;
        for (var i = 0; i + 8 <= bits.Length; i += 8)
        {
            count += BitOperations.PopCount(BinaryPrimitives.ReadUInt64LittleEndian(bits[i..]));
        }

        return count;
    }
}
