using System.Buffers.Binary;
using System.Diagnostics;
using System.Numerics;
using static Voron.Allocation.FreeSpaceFormat;

namespace Voron.Allocation;

// The bitmap half of the allocator: setting and clearing bits with their section counts (A1, A4),
// finding runs, and growing the directory and bitmap pages (A2).
internal sealed partial class PageAllocator
{
    /// <summary>Whether a page's bit is set.</summary>
    public bool IsFree(long page)
    {
        var k = page / PagesPerBitmap;
        if (page < 0 || k >= _bitmapPages.Length)
        {
            return false;
        }

        var bit = (int)(page % PagesPerBitmap);
        var bits = _pages.GetPage(_bitmapPages[k])[BitsOffset..];
        return (bits[bit >> 3] & (1 << (bit & 7))) != 0;
    }

    public long FindRun(int firstSection, int sections, int count)
    {
        var end = Math.Min(firstSection + sections, _sectionFree.Length);
        for (var s = Math.Max(firstSection, 0); s < end;)
        {
            var chunkEnd = Math.Min(end, (s / SectionsPerBitmap + 1) * SectionsPerBitmap);
            var found = FindRunInBitmap(s, chunkEnd, count);
            if (found >= 0)
            {
                return found;
            }

            s = chunkEnd;
        }

        return -1;
    }

    /// <summary>The lowest run of <paramref name="count"/> set bits in sections [s0, s1) of one bitmap page, or -1.</summary>
    private long FindRunInBitmap(int s0, int s1, int count)
    {
        var counts = _sectionFree.AsSpan(s0, s1 - s0);
        var available = 0;
        foreach (var c in counts)
        {
            available += c;
        }

        if (available < count)
        {
            return -1;
        }

        var k = s0 / SectionsPerBitmap;
        var bitmap = _pages.GetPage(_bitmapPages[k]);
        if (count == 1)
        {
            var s = s0 + counts.IndexOfAnyExcept((ushort)0);
            var bits = SectionBits(bitmap, s - k * SectionsPerBitmap);
            for (var word = 0; word < SectionBytes; word += 8)
            {
                var value = BinaryPrimitives.ReadUInt64LittleEndian(bits[word..]);
                if (value != 0)
                {
                    return (long)s * PagesPerSection + word * 8 + BitOperations.TrailingZeroCount(value);
                }
            }

            throw new InvalidOperationException($"A1: section {s} counts {_sectionFree[s]} free pages but its bitmap has none.");
        }

        long runStart = -1;
        var runLength = 0;
        for (var s = s0; s < s1; s++)
        {
            if (_sectionFree[s] == 0)
            {
                runLength = 0;
                continue;
            }

            var bits = SectionBits(bitmap, s - k * SectionsPerBitmap);
            for (var word = 0; word < SectionBytes; word += 8)
            {
                var value = BinaryPrimitives.ReadUInt64LittleEndian(bits[word..]);
                var wordStart = (long)s * PagesPerSection + word * 8;
                if (value == ulong.MaxValue)
                {
                    runStart = runLength == 0 ? wordStart : runStart;
                    runLength += 64;
                    if (runLength >= count)
                    {
                        return runStart;
                    }

                    continue;
                }

                for (var b = 0; b < 64; b++)
                {
                    if ((value & (1UL << b)) == 0)
                    {
                        runLength = 0;
                        continue;
                    }

                    runStart = runLength++ == 0 ? wordStart + b : runStart;
                    if (runLength == count)
                    {
                        return runStart;
                    }
                }
            }
        }

        return -1;
    }

    /// <summary>Sets (free) or clears (allocated) the bits of a run, keeping the counts (A1, A4).</summary>
    private void ChangeBits(long first, int count, bool free)
    {
        MakeWritable();
        for (var page = first; page < first + count;)
        {
            var k = (int)(page / PagesPerBitmap);
            if (free)
            {
                EnsureBitmap(k);
            }
            else if (k >= _bitmapPages.Length)
            {
                throw new InvalidOperationException($"A4: page {page} is taken from free space but has no bitmap.");
            }

            var inBitmap = (int)(page % PagesPerBitmap);
            var j = inBitmap / PagesPerSection;
            var from = inBitmap % PagesPerSection;
            var run = (int)Math.Min(first + count - page, PagesPerSection - from);
            var bitmap = _pages.ModifyPage(_bitmapPages[k]);
            var bits = bitmap.Slice(BitsOffset + SectionBytes * j, SectionBytes);
            for (var i = from; i < from + run; i++)
            {
                var mask = (byte)(1 << (i & 7));
                if (((bits[i >> 3] & mask) != 0) == free)
                {
                    // A4: always on — a double free or a double allocation corrupts data silently otherwise.
                    throw new InvalidOperationException($"A4: page {page + i - from} is already {(free ? "free" : "allocated")}.");
                }

                bits[i >> 3] ^= mask;
            }

            var section = k * SectionsPerBitmap + j;
            var updated = _sectionFree[section] + (free ? run : -run);
            Debug.Assert(updated is >= 0 and <= PagesPerSection && updated == SectionCount(bitmap, j) + (free ? run : -run), "A1: counts stay within the section and agree with the page");
            SetSectionCount(bitmap, j, updated);
            _sectionFree[section] = (ushort)updated;
            _freePages += free ? run : -run;
            page += run;
        }
    }

    /// <summary>A4: none of the run's pages may be free already.</summary>
    private void RequireAllocated(long first, int count)
    {
        for (var page = first; page < first + count; page++)
        {
            if (IsFree(page))
            {
                throw new InvalidOperationException($"A4: page {page} is already free.");
            }
        }
    }

    /// <summary>Copies the arrays shared with the committed summary before the first change.</summary>
    private void MakeWritable()
    {
        if (!_ownsArrays)
        {
            _bitmapPages = (long[])_bitmapPages.Clone();
            _sectionFree = (ushort[])_sectionFree.Clone();
            _ownsArrays = true;
        }
    }

    private void EnsureDirectory()
    {
        if (DirectoryPage == 0)
        {
            DirectoryPage = AllocateAtEnd(1); // A2
            InitDirectory(_pages.CreatePage(DirectoryPage, 1));
        }
    }

    private void EnsureBitmap(int k)
    {
        if (k < _bitmapPages.Length)
        {
            return;
        }

        EnsureDirectory();
        MakeWritable();
        var grownPages = new long[k + 1];
        var grownCounts = new ushort[(k + 1) * SectionsPerBitmap];
        _bitmapPages.CopyTo(grownPages, 0);
        _sectionFree.CopyTo(grownCounts, 0);
        for (var index = _bitmapPages.Length; index <= k; index++)
        {
            var page = AllocateAtEnd(1); // A2
            InitBitmap(_pages.CreatePage(page, 1), index);
            var directory = _pages.ModifyPage(DirectoryPage);
            WriteInt64(directory, ListOffset + 8 * index, page);
            WriteInt32(directory, BitmapCountOffset, index + 1);
            grownPages[index] = page;
        }

        _bitmapPages = grownPages;
        _sectionFree = grownCounts;
    }
}
