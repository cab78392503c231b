using System.Buffers.Binary;
using System.Diagnostics;
using System.Numerics;

namespace Voron.Allocation;

// Design notes — the page allocator (first fit over a free-space bitmap).
//
// One allocator per write transaction, started from the committed FreeSpaceSummary and the
// committed NextPageNumber; commit publishes its summary with the new state, rollback drops it.
//
// Invariants:
//   A1. A page is free iff its bit is set; pages at or above NextPageNumber have no bit set.
//   A2. The allocator's own pages (directory and bitmaps) are taken from the end of the file,
//       never from the bitmap, so allocating never recurses into itself.
//   A3. A page freed by transaction T may be reused by T or any later transaction at once.
//       Readers are not harmed: page numbers are stable and a reader finds the version its
//       snapshot needs in the page table or the data file (Transactions/PageTable.cs PT3), and
//       the flusher never overwrites a data-file page a live reader may still read.
//   A4. Freeing a page that is already free is a bug and throws at once (double free).
//
// A later issue replaces first fit with 4 MiB sections and an active section; this type is the
// seam for that (Allocation/ has the policy, transactions only call Allocate and Free).

/// <summary>Allocates and frees pages for one write transaction.</summary>
internal sealed class PageAllocator
{
    private readonly IAllocatorPages _pages;
    private List<long> _bitmapPages;
    private List<int> _freeCounts;
    private int _firstBitmapWithSpace;

    public PageAllocator(IAllocatorPages pages, FreeSpaceSummary summary, long nextPageNumber, long directoryPage)
    {
        _pages = pages;
        _bitmapPages = [.. summary.BitmapPages];
        _freeCounts = [.. summary.FreeCounts];
        NextPageNumber = nextPageNumber;
        DirectoryPage = directoryPage;
    }

    /// <summary>Pages at or above this number were never allocated.</summary>
    public long NextPageNumber { get; private set; }

    /// <summary>The free-space directory page; 0 until the first page is freed.</summary>
    public long DirectoryPage { get; private set; }

    public FreeSpaceSummary ToSummary() => new([.. _bitmapPages], [.. _freeCounts]);

    /// <summary>Takes <paramref name="count"/> consecutive pages: the first fitting free run, else the end of the file.</summary>
    public long Allocate(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        for (var k = _firstBitmapWithSpace; k < _bitmapPages.Count; k++)
        {
            if (_freeCounts[k] < count)
            {
                continue;
            }

            var bit = FindRun(_pages.GetPage(_bitmapPages[k]), count);
            if (bit < 0)
            {
                continue;
            }

            SetBits(k, bit, count, free: false);
            return (long)k * FreeSpaceFormat.BitsPerPage + bit;
        }

        _firstBitmapWithSpace = _bitmapPages.Count;
        return AllocateAtEnd(count);
    }

    /// <summary>Marks <paramref name="count"/> pages from <paramref name="first"/> free.</summary>
    public void Free(long first, int count)
    {
        if (first <= 0 || first + count > NextPageNumber)
        {
            throw new InvalidOperationException($"Freeing pages [{first}, {first + count}) which were never allocated (next page {NextPageNumber}).");
        }

        for (var page = first; page < first + count;)
        {
            var k = (int)(page / FreeSpaceFormat.BitsPerPage);
            EnsureBitmap(k);
            var bit = (int)(page % FreeSpaceFormat.BitsPerPage);
            var run = (int)Math.Min(first + count - page, FreeSpaceFormat.BitsPerPage - bit);
            SetBits(k, bit, run, free: true);
            _firstBitmapWithSpace = Math.Min(_firstBitmapWithSpace, k);
            page += run;
        }
    }

    /// <summary>Whether a page's bit is set (for the integrity check).</summary>
    public bool IsFree(long page)
    {
        var k = (int)(page / FreeSpaceFormat.BitsPerPage);
        if (k >= _bitmapPages.Count)
        {
            return false;
        }

        var bit = (int)(page % FreeSpaceFormat.BitsPerPage);
        var bits = _pages.GetPage(_bitmapPages[k])[FreeSpaceFormat.BitsOffset..];
        return (bits[bit >> 3] & (1 << (bit & 7))) != 0;
    }

    /// <summary>The pages the allocator itself owns: the directory and the bitmaps.</summary>
    public IEnumerable<long> OwnPages() => DirectoryPage == 0 ? [] : [DirectoryPage, .. _bitmapPages];

    private long AllocateAtEnd(int count)
    {
        var first = NextPageNumber;
        if ((first + count) / FreeSpaceFormat.BitsPerPage >= FreeSpaceFormat.MaxBitmapPages)
        {
            throw new InvalidOperationException($"The data file cannot grow past {(long)FreeSpaceFormat.MaxBitmapPages * FreeSpaceFormat.BitsPerPage} pages in this format version.");
        }

        NextPageNumber += count;
        return first;
    }

    private void EnsureBitmap(int k)
    {
        if (DirectoryPage == 0)
        {
            DirectoryPage = AllocateAtEnd(1);
            FreeSpaceFormat.InitDirectory(_pages.CreatePage(DirectoryPage, 1));
        }

        while (_bitmapPages.Count <= k)
        {
            var index = _bitmapPages.Count;
            var page = AllocateAtEnd(1);
            FreeSpaceFormat.InitBitmap(_pages.CreatePage(page, 1), index);
            var directory = _pages.ModifyPage(DirectoryPage);
            BinaryPrimitives.WriteInt64LittleEndian(directory[(FreeSpaceFormat.ListOffset + 8 * index)..], page);
            BinaryPrimitives.WriteInt32LittleEndian(directory[FreeSpaceFormat.CountOffset..], index + 1);
            _bitmapPages.Add(page);
            _freeCounts.Add(0);
        }
    }

    private void SetBits(int k, int bit, int count, bool free)
    {
        var bits = _pages.ModifyPage(_bitmapPages[k])[FreeSpaceFormat.BitsOffset..];
        for (var i = bit; i < bit + count; i++)
        {
            var mask = (byte)(1 << (i & 7));
            var isFree = (bits[i >> 3] & mask) != 0;
            if (isFree == free)
            {
                // A4: always on — a double free or a double allocation corrupts data silently otherwise.
                throw new InvalidOperationException($"A4: page {(long)k * FreeSpaceFormat.BitsPerPage + i} is already {(free ? "free" : "allocated")}.");
            }

            bits[i >> 3] ^= mask;
        }

        _freeCounts[k] += free ? count : -count;
        Debug.Assert(_freeCounts[k] >= 0 && _freeCounts[k] <= FreeSpaceFormat.BitsPerPage, "A1: free count stays within the bitmap");
    }

    /// <summary>The first bit of a run of <paramref name="count"/> set bits, or -1.</summary>
    private static int FindRun(ReadOnlySpan<byte> page, int count)
    {
        var bits = page[FreeSpaceFormat.BitsOffset..Constants.PageSize];
        var runStart = -1;
        var runLength = 0;
        for (var word = 0; word + 8 <= bits.Length; word += 8)
        {
            var value = BinaryPrimitives.ReadUInt64LittleEndian(bits[word..]);
            if (value == 0)
            {
                runLength = 0;
                continue;
            }

            if (count == 1)
            {
                return word * 8 + BitOperations.TrailingZeroCount(value);
            }

            for (var b = 0; b < 64; b++)
            {
                if ((value & (1UL << b)) == 0)
                {
                    runLength = 0;
                    continue;
                }

                if (runLength++ == 0)
                {
                    runStart = word * 8 + b;
                }

                if (runLength == count)
                {
                    return runStart;
                }
            }
        }

        return -1;
    }
}
