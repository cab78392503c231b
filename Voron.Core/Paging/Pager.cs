using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Voron.Platform;

namespace Voron.Paging;

// Design notes — the pager.
//
// The data file is mapped read-only once, with a large address-space reservation
// (StorageEnvironmentOptions.MaxDataFileSize), so growing the file never moves the mapping and
// pages that live readers hold stay valid (on Linux a MAP_SHARED mapping beyond end of file is
// legal; only touching bytes past the end faults, and nothing does: P-invariants below). The
// portable file system cannot reserve past the end of the file: each growth asks the mapping to
// cover the new length (IMappedRegion.Cover), which may move the base address; an old view stays
// mapped until no transaction that may hold a page from it is live (Paging/SupersededViews.cs,
// MV1–MV5), so held pages stay valid there too.
// Every write goes through IStorageFile.Write, never through the mapping; the OS page cache keeps
// the mapping coherent with those writes.
//
// Invariants:
//   PG1. Only the flusher, recovery and a commit's in-place write of the pages it created write
//        the data file, and only pages whose versions no live reader needs from the mapping
//        (Transactions/PageTable.cs explains which; IP1 in Transactions/InPlacePages.cs).
//   PG2. A page is read through the mapping only below the file's length: the file is extended
//        (preallocated) before any page beyond its end is written.
//   PG3. A page read from the mapping is validated (P1–P4 in PageHeader.cs) before its bytes
//        are returned, the first time after open or after the flusher rewrote it; a bit per page
//        remembers that it passed. A race between a reader setting the bit and the flusher
//        clearing it can only skip re-verifying bytes the flusher itself wrote from verified
//        memory.
//   PG4. The file grows geometrically (by an eighth of its size, 512 KiB to 256 MiB at a time)
//        while space is plentiful, and by exactly what is needed when the disk cannot give more.
//        An eighth, not the whole size: a doubling left a loaded store's file up to twice its
//        high-water mark (the filesize experiment), and one more fallocate + fdatasync per eighth
//        costs nothing measurable.
//   PG5. A transaction's pages lie inside the file before its journal record is written: the
//        commit reserves (grows and syncs) the file up to its NextPageNumber first (Reserve), so
//        replaying the journal never needs space the store does not already hold.
//   PG6. A clean close whose final flush succeeded truncates the file to the high-water mark
//        (the last commit's NextPageNumber), after the mapping is released: no page at or past it
//        is referenced by the header, the journal or any reader (every record's pages lie below
//        its own NextPageNumber, which never decreases), so PG5 still holds and the next open
//        needs no growth to recover. Best effort: a file system that refuses keeps the length.
//   PG7. In a sealed store (Sealing/SealFormat.cs) every page that goes to the file through this
//        type — WritePages (the flusher, a commit's in-place pages), WritePage (recovery) — is
//        sealed first into a copy of its own (SL9), whole (a new seal changes every byte, so FL10's
//        units do not apply); a page-file block arrives sealed by its writer and goes as it is
//        (SealedPages.IsPageToSeal). ReadPage opens a page into the decrypted-page cache instead of
//        handing out the mapping (OP1–OP5 in Sealing/DecryptedPageCache.cs); each miss checks P1–P4
//        and the seal, so PG3's bits are not used. The identity page (page 0) stays plaintext.

/// <summary>The data file: validated reads through a read-only mapping, positional writes, growth.</summary>
internal sealed unsafe partial class Pager : IDisposable
{
    private readonly IStorageFile _file;
    private readonly IMappedRegion _map;
    private readonly SupersededViews _views; // MV1–MV5: the views a growth left behind
    // _map's first byte for the current length, cached so the read path makes no interface call.
    // Written (volatile) before _length grows; readers read it after their volatile read of _length.
    private nint _base;
    private readonly object _growLock = new(); // one growth at a time (the commit's Reserve, the flusher, recovery)
    private long[] _verified = new long[1024]; // PG3: one bit per page
    private long _length;
    private long _trimPagesOnDispose; // PG6: 0 = leave the length as it is
    private readonly Sealing.SealedPages? _sealed; // PG7: a sealed store's pages, else null

    /// <summary>The smallest growth step of the data file (PG4): 512 KiB.</summary>
    public const long MinGrowthPages = 64;

    /// <summary>The largest growth step of the data file (PG4).</summary>
    public const long MaxGrowthBytes = 256L << 20;

    /// <summary>PG4: a growth step is the file's size over this (between the two bounds above).</summary>
    public const long GrowthDivisor = 8;

    /// <param name="file">The data file.</param>
    /// <param name="maxFileSize">MaxDataFileSize: the mapping's reservation.</param>
    /// <param name="sealedPages">A sealed store's seal and opened-page cache (PG7), disposed with the pager; null for a plaintext store.</param>
    public Pager(IStorageFile file, long maxFileSize, Sealing.SealedPages? sealedPages = null)
    {
        _file = file;
        _sealed = sealedPages;
        _length = file.Length;
        if (_length % Constants.PageSize != 0)
        {
            // A crash (or a full disk) cut an extending write short: the partial last page was
            // never synced, so nothing durable depends on it. Round up to whole pages; recovery
            // rewrites the page if the journal holds it, and a read of anything else there fails
            // its checksum (P4).
            _length += Constants.PageSize - _length % Constants.PageSize;
            file.SetLength(_length);
        }

        if (_length > maxFileSize)
        {
            throw new ArgumentException($"The data file '{file.Path}' is {_length} bytes, above MaxDataFileSize ({maxFileSize}); raise the option.", nameof(maxFileSize));
        }

        _map = file.MapReadOnly(maxFileSize);
        _map.Cover(_length);
        _base = (nint)_map.BaseAddress;
        _views = new SupersededViews(_map);
    }

    /// <summary>Whether the store is sealed: pages are sealed on their way to the file and opened when read (PG7).</summary>
    public bool IsSealed => _sealed != null;

    /// <summary>A sealed store's pages (PG7), else null.</summary>
    public Sealing.SealedPages? SealedPages => _sealed;

    /// <summary>The views growth left behind, and their release (MV1–MV5).</summary>
    public SupersededViews Views => _views;

    /// <summary>Bytes of address space the mapping takes: its views' on the portable file system, the reservation elsewhere (tests and measurements).</summary>
    internal long MappedBytes => _map is Platform.Portable.PortableMapping portable ? portable.MappedBytes : _map.ReservedLength;

    public string Path => _file.Path;

    private byte* Base => (byte*)Volatile.Read(ref _base);

    /// <summary>
    /// Whether <paramref name="bytes"/> lie in the mapping as it is now: such bytes stay mapped
    /// while the transaction that read them is live (MV4). A span from a view the portable mapping
    /// has since moved away from (MM1) answers false, which only costs its holder a fetch.
    /// </summary>
    public bool Contains(ReadOnlySpan<byte> bytes)
    {
        var start = (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetReference(bytes));
        var mapping = Base;
        return start >= mapping && start + bytes.Length <= mapping + _map.ReservedLength;
    }

    /// <summary>The most pages the file may hold while open (MaxDataFileSize).</summary>
    public long MaxPageCount => _map.ReservedLength / Constants.PageSize;

    /// <summary>The file's length in pages.</summary>
    public long PageCount => Volatile.Read(ref _length) / Constants.PageSize;

    /// <summary>
    /// A page (or the whole overflow run it starts) from the mapping, validated (PG3). The span
    /// points into the mapping: valid while the transaction that reads it is live (MV1, MV4). In a
    /// sealed store (PG7) it is the page opened, from the decrypted-page cache.
    /// </summary>
    public ReadOnlySpan<byte> ReadPage(long pageNumber)
    {
        var offset = pageNumber * Constants.PageSize;
        if (pageNumber <= 0 || pageNumber >= PageCount)
        {
            throw new CorruptionException(Path, offset, $"page {pageNumber} is referenced but lies outside the data file ({PageCount} pages)");
        }

        var page = new ReadOnlySpan<byte>(Base + offset, Constants.PageSize);
        var flags = PageHeader.GetFlags(page);
        var runLength = Constants.PageSize;
        if (flags == PageFlags.Overflow)
        {
            var size = PageHeader.GetOverflowSize(page);
            var pages = size is < 0 or > Constants.MaxValueSize ? long.MaxValue : (PageHeader.Size + (long)size + Constants.PageSize - 1) / Constants.PageSize;
            if (pages > PageCount - pageNumber)
            {
                throw new CorruptionException(Path, offset, $"rule P3: overflow page {pageNumber} claims {size} bytes, past the end of the file or above the largest value");
            }

            runLength = checked((int)(pages * Constants.PageSize));
            page = new ReadOnlySpan<byte>(Base + offset, runLength);
        }

        if (_sealed != null)
        {
            CheckFlags(pageNumber, flags);
            return _sealed.Open(pageNumber, page, Path); // PG7: P1, P3, P4 and the seal, on every miss
        }

        if (!IsVerified(pageNumber))
        {
            Validate(page, pageNumber, flags);
            MarkVerified(pageNumber);
        }

        return page;
    }

    private void CheckFlags(long pageNumber, PageFlags flags)
    {
        if (flags is not (PageFlags.Leaf or PageFlags.Branch or PageFlags.Overflow or PageFlags.FreeSpace))
        {
            throw new CorruptionException(Path, pageNumber * Constants.PageSize, $"rule P2: page {pageNumber} has unknown flags 0x{(byte)flags:X2}");
        }
    }

    private void Validate(ReadOnlySpan<byte> run, long pageNumber, PageFlags flags)
    {
        var offset = pageNumber * Constants.PageSize;
        if (PageHeader.GetPageNumber(run) != pageNumber)
        {
            throw new CorruptionException(Path, offset, $"rule P1: page {pageNumber} holds the header of page {PageHeader.GetPageNumber(run)}");
        }

        CheckFlags(pageNumber, flags);
        var expected = PageHeader.ComputeChecksum(run);
        var actual = PageHeader.GetChecksum(run);
        if (expected != actual)
        {
            throw new CorruptionException(Path, offset, $"rule P4: page {pageNumber} checksum is 0x{actual:X8}, its bytes give 0x{expected:X8} (a torn or damaged page)");
        }
    }

    private bool IsVerified(long pageNumber)
    {
        var bits = Volatile.Read(ref _verified);
        var word = pageNumber >> 6;
        return word < bits.Length && (Volatile.Read(ref bits[word]) & (1L << (int)(pageNumber & 63))) != 0;
    }

    private void MarkVerified(long pageNumber)
    {
        var word = pageNumber >> 6;
        var bits = Volatile.Read(ref _verified);
        if (word >= bits.Length)
        {
            // Growing may lose a concurrent reader's bit: that page is just verified again.
            var grown = new long[Math.Max(bits.Length * 2, word + 1)];
            Array.Copy(bits, grown, bits.Length);
            Volatile.Write(ref _verified, grown);
            bits = grown;
        }

        Interlocked.Or(ref bits[word], 1L << (int)(pageNumber & 63));
    }

    private void ForgetVerified(long pageNumber, int pageCount)
    {
        _sealed?.Cache.Forget(pageNumber, pageCount); // OP1 makes them miss anyway; this frees the memory
        var bits = Volatile.Read(ref _verified);
        for (var p = pageNumber; p < pageNumber + pageCount; p++)
        {
            var word = p >> 6;
            if (word < bits.Length)
            {
                Interlocked.And(ref bits[word], ~(1L << (int)(p & 63)));
            }
        }
    }

    /// <summary>
    /// Extends the file (preallocating blocks) so it holds at least <paramref name="pages"/> pages;
    /// returns whether it grew. Grows geometrically — by an eighth of the current size, at least
    /// <see cref="MinGrowthPages"/>, at most <see cref="MaxGrowthBytes"/> at a time (PG4) — and on a
    /// full disk by exactly what is needed; only when that fails too does it throw
    /// <see cref="DiskFullException"/>, saying how many bytes the file system must free.
    /// </summary>
    public bool EnsurePageCount(long pages)
    {
        if (pages <= PageCount)
        {
            return false;
        }

        lock (_growLock)
        {
            var current = PageCount;
            if (pages <= current)
            {
                return false;
            }

            var needed = pages * Constants.PageSize;
            if (needed > _map.ReservedLength)
            {
                throw new IOException($"The data file '{Path}' would grow past MaxDataFileSize ({_map.ReservedLength} bytes); raise the option.");
            }

            var step = Math.Clamp(current / GrowthDivisor, MinGrowthPages, MaxGrowthBytes / Constants.PageSize);
            var wanted = Math.Min(Math.Max(pages, current + step) * Constants.PageSize, _map.ReservedLength);
            try
            {
                _file.Preallocate(wanted);
            }
            catch (DiskFullException) when (wanted > needed)
            {
                // PG4: space is short — take only what this growth needs.
                try
                {
                    _file.Preallocate(needed);
                }
                catch (DiskFullException e)
                {
                    throw GrowthFailed(current * Constants.PageSize, needed, e);
                }

                wanted = needed;
            }
            catch (DiskFullException e)
            {
                throw GrowthFailed(current * Constants.PageSize, needed, e);
            }

            var grown = Math.Max(wanted, _file.Length);
            // The base for the new length is published before the length, so a reader that sees
            // the length (a volatile read, before it reads _base) sees a base that covers it; and
            // before the old view counts as left behind (MV2).
            _map.Cover(Math.Min(grown, _map.ReservedLength));
            Volatile.Write(ref _base, (nint)_map.BaseAddress);
            Volatile.Write(ref _length, grown);
            _views.Publish();
            return true;
        }
    }

    /// <summary>
    /// PG5: makes sure the data file holds <paramref name="pages"/> pages and that its size is
    /// durable, before a transaction whose pages reach that far is journaled. Recovery then never
    /// has to grow the file: after a full disk, the store opens again without more space.
    /// </summary>
    public void Reserve(long pages)
    {
        if (EnsurePageCount(pages))
        {
            _file.FlushData(); // F2: the new size is durable before the journal record that relies on it
        }
    }

    private DiskFullException GrowthFailed(long from, long to, DiskFullException cause) =>
        new($"Growing the data file '{Path}' from {from:N0} to {to:N0} bytes needs {to - from:N0} more bytes on the file system that holds it, " +
            $"which is full ({cause.Message.TrimEnd('.')}). Free at least that much there, then reopen the store.", Path, to - from, cause);

    /// <summary>
    /// Writes page images (each a whole page or run, keyed by first page number) sorted by page
    /// number, one gathered write per contiguous stretch of bytes. With <paramref name="units"/>
    /// (one mask per image, Flushing/FlushUnits.cs, FL10) only the marked 4 KiB units of each image
    /// are written; the rest of it must already hold the same bytes in the file. Returns the number
    /// of gathered writes (seeks) and the bytes written. An image may be any memory (a managed
    /// array, or a page version in the scratch file's mapping).
    /// </summary>
    /// <param name="sortedPages">The images, sorted by page number.</param>
    /// <param name="units">FL10's masks, one per image, or null for whole images.</param>
    /// <param name="storedChecksums">When given (one slot per image), the CRC32C of each image's bytes as written: sealed in a sealed store (IP7).</param>
    public (int Runs, long Bytes) WritePages(IReadOnlyList<KeyValuePair<long, ReadOnlyMemory<byte>>> sortedPages, IReadOnlyList<ulong>? units = null,
        uint[]? storedChecksums = null)
    {
        var run = new GatheredRun(this);
        for (var i = 0; i < sortedPages.Count; i++)
        {
            var (pageNumber, image) = sortedPages[i];
            var offset = pageNumber * Constants.PageSize;
            EnsurePageCount(pageNumber + image.Length / Constants.PageSize);
            var mask = units?[i] ?? Flushing.FlushUnits.All;
            if (_sealed != null)
            {
                var stored = _sealed.ForWrite(pageNumber, image, out var rented); // PG7: a new seal changes every byte
                if (storedChecksums != null)
                {
                    storedChecksums[i] = Crc32C.Compute(stored.Span);
                }

                run.Add(offset, stored, rented);
                continue;
            }

            if (storedChecksums != null)
            {
                storedChecksums[i] = Crc32C.Compute(image.Span);
            }

            if (Flushing.FlushUnits.IsWhole(mask, image.Length))
            {
                run.Add(offset, image);
                continue;
            }

            var count = Flushing.FlushUnits.Count(image.Length);
            for (var unit = 0; unit < count; unit++)
            {
                if ((mask & (1UL << unit)) == 0)
                {
                    continue;
                }

                var end = unit;
                while (end + 1 < count && (mask & (1UL << (end + 1))) != 0)
                {
                    end++;
                }

                const int size = Flushing.FlushUnits.UnitSize;
                run.Add(offset + (long)unit * size, image.Slice(unit * size, (end - unit + 1) * size));
                unit = end;
            }
        }

        run.Write();
        return (run.Runs, run.Bytes);
    }

    /// <summary>Writes one page image at its place (creation and recovery); sealed first in a sealed store (PG7).</summary>
    public void WritePage(long pageNumber, ReadOnlySpan<byte> image)
    {
        EnsurePageCount(pageNumber + image.Length / Constants.PageSize);
        byte[]? rented = null;
        try
        {
            if (_sealed != null && Sealing.SealedPages.IsPageToSeal(pageNumber, image))
            {
                _file.Write(pageNumber * Constants.PageSize, _sealed.SealCopy(image, out rented).Span);
            }
            else
            {
                _file.Write(pageNumber * Constants.PageSize, image);
            }
        }
        finally
        {
            Sealing.SealedPages.Return(rented);
        }

        ForgetVerified(pageNumber, image.Length / Constants.PageSize);
    }

    /// <summary>
    /// The page or run at <paramref name="pageNumber"/> as the file holds it, opened in a sealed
    /// store (recovery's base for a diff, PG7); bytes that do not open are a CorruptionException.
    /// </summary>
    public void ReadOpened(long pageNumber, Span<byte> destination)
    {
        ReadRaw(pageNumber, destination);
        if (_sealed != null)
        {
            _sealed.OpenInto(pageNumber, destination, destination, Path); // opened in place (PageSeal.Open allows it)
        }
    }

    /// <summary>
    /// Copies pages as the file holds them, without validation (recovery applies diffs on top of
    /// whatever a crash left there); bytes past the end of the file read as zeros.
    /// </summary>
    public void ReadRaw(long pageNumber, Span<byte> destination)
    {
        destination.Clear();
        var read = _file.Read(pageNumber * Constants.PageSize, destination);
        _ = read; // short at the end of the file: the rest stays zero
    }

    /// <summary>Reads page 0 raw, for identity checks.</summary>
    public ReadOnlySpan<byte> ReadIdentityPage() =>
        PageCount > 0 ? _map.GetSpan(0, Constants.PageSize) : throw new CorruptionException(Path, 0, "the data file is empty: it has no identity page");

    public void Sync() => _file.FlushData();

    /// <summary>
    /// PG6: when disposed, cut the file back to <paramref name="pages"/> pages, the high-water
    /// mark of the last commit. Only for a clean close, after the final flush.
    /// </summary>
    public void TrimOnDispose(long pages) => Volatile.Write(ref _trimPagesOnDispose, pages);

    public void Dispose()
    {
        _sealed?.Dispose();
        _map.Dispose(); // first: a file with a mapped view cannot be shortened on Windows
        var trim = Volatile.Read(ref _trimPagesOnDispose) * Constants.PageSize;
        if (trim > 0 && _file.Length > trim)
        {
            try
            {
                _file.SetLength(trim);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // PG6 is best effort: the longer file is valid, and the next close tries again.
            }
        }

        _file.Dispose();
    }

}
