using Voron.Paging;
using Voron.Platform;

namespace Voron.Scratch;

// FORMAT: the scratch file (voron.scratch) — page versions the page table spilled from memory.
//
// Purpose: committed page versions that are not yet in the data file live in the page table
// (Transactions/PageTable.cs). Beyond StorageEnvironmentOptions.MaxPageVersionMemory they live
// here instead, so a long-lived reader costs disk, not memory. The file is scratch: it is never
// synced and never read at recovery (the journal holds every committed page), open deletes any
// copy an earlier process left, and a clean close deletes it. So it has no header, no version
// and no compatibility rule: its layout is known only to the process that writes it.
//
//   +-----------+-----------+-----------+-----------+-----
//   | slot 0    | slot 1    | slot 2    | slot 3    | ...      slot = 8 KiB, at offset slot * 8192
//   +-----------+-----------+-----------+-----------+-----
//   | version of page 812   | free      | version of page 9 (first slot of a 3-page run) ...
//
//   OFFSET      SIZE           NAME      MEANING
//   slot*8192   n*8192         image     one page version (n = 1) or overflow run (n pages),
//                                        byte for byte as the commit published it (a page with its
//                                        header, Paging/PageHeader.cs, or a page-file block, which
//                                        has none), or sealed (SC5)
//
// Which slot holds which version lives only in memory (the page table's entries). Slots are
// allocated from a bitmap (first fit from a rotating cursor; the file grows when no free run
// fits) and freed when the version leaves the page table (SC2). The file is preallocated, so a
// full disk fails the spill with an IOException (DiskFullException), never a mapped read; a
// failed spill fails the store (C5 at a commit, FL6 in the flusher) and the next open recovers
// everything from the journal. The design follows the original Voron's scratch buffers (our own
// code: one file, a slot bitmap, no journal role).
//
// Validity: a slot is read only through a page-table entry naming it. The first read after it
// was written checks
//   SC1. the CRC32C of the slot's bytes equals the one recorded when the version was spilled
//        (Slot.Checksum, kept in the page-table entry). Not the page header's P1 and P4: a
//        page-file block has no header (T8), and a sealed slot's header checksum is of its sealed
//        bytes (SC5); a slot's own CRC covers both, and a misplaced slot too;
// else CorruptionException(voron.scratch, offset). A reader checks a slot once (the first read);
// the flusher checks it on every read, right before its bytes go to the data file (the file is
// never synced, so the OS may write a slot back and read it in again). A damaged slot therefore
// never reaches the data file: the flusher fails the store (FL6), and the next open rebuilds
// everything from the journal.
//
// Invariants:
//   SC2. A slot is written only while no transaction can read it: it was never used, or its
//        version left the page table and no transaction that could have read it is still live
//        (PageTable PT7: pruned versions at once, flushed ones once every transaction live at
//        their removal has ended).
//   SC3. The file is truncated to zero only when no slot is allocated or retired (nothing can
//        read it); the mapping's address never changes (reserved once) or, on the portable file
//        system, moves only to a new view while an old one stays mapped until no transaction that
//        may hold a span into it is live and no flush reads it (Paging/SupersededViews.cs,
//        MV1–MV5), so spans readers hold into live slots stay valid.
//   SC4. Allocation, freeing, growth and truncation happen under the page table's lock; reads
//        are lock-free (the verified bits are advisory: a lost bit only costs a re-check).
//   SC5. In a sealed store each page image is sealed before it is written here (SL9), under an
//        ephemeral key drawn at each open and never written anywhere (StoreKey.CreateEphemeral),
//        so a scratch file a crash left behind is unreadable to everyone, its owner included. A
//        read opens the slot (SC1 and the seal, on every miss of its own decrypted-page cache,
//        keyed by the slot's offset: OP1); the flusher's read opens it into a new array, which
//        the pager seals again under the pages subkey (PG7). A page-file block arrives sealed by
//        its writer and is stored as it is (Sealing/SealedPages.IsPageToSeal).

/// <summary>Where a spilled version lives: its slot's offset, the CRC32C of the slot's bytes (SC1), and whether the scratch file sealed it (SC5).</summary>
internal readonly record struct Slot(long Offset, uint Checksum, bool Sealed);

/// <summary>Page versions spilled from the page table's memory; see the FORMAT block above.</summary>
internal sealed unsafe partial class ScratchFile : IDisposable
{
    private const long MinGrowth = 1L << 20;
    private const long MaxGrowth = 64L << 20;

    private readonly IFileSystem _fileSystem;
    private long _reserve; // bytes the mapping can show: the file never grows past it
    private IStorageFile? _file;
    private IMappedRegion? _map;
    private SupersededViews? _views; // MV1–MV5: the views a growth left behind
    private nint _base; // the mapping's base for the current length (IMappedRegion.Cover); written before _length grows
    private long _length; // bytes, a multiple of the page size; guarded by the page table's lock
    private bool _deleted;

    private readonly Sealing.SealedPages? _sealed; // SC5

    /// <param name="fileSystem">Where the file lives.</param>
    /// <param name="path">The file.</param>
    /// <param name="reserve">The most bytes the mapping may show.</param>
    /// <param name="sealedPages">A sealed store's scratch seal, under an ephemeral key (SC5), disposed with the file; else null.</param>
    public ScratchFile(IFileSystem fileSystem, string path, long reserve, Sealing.SealedPages? sealedPages = null)
    {
        _fileSystem = fileSystem;
        _sealed = sealedPages;
        Path = path;
        _reserve = reserve / Constants.PageSize * Constants.PageSize;
    }

    public string Path { get; }

    private byte* Base => (byte*)Volatile.Read(ref _base);

    /// <summary>Bytes of page versions written to the file since the store opened (tests: slots are reused, SC2).</summary>
    internal long WrittenBytes => Volatile.Read(ref _writtenBytes);

    private long _writtenBytes;

    /// <summary>The file's current length in bytes (0 until the first spill, and after a truncation).</summary>
    public long Length => Volatile.Read(ref _length);

    /// <summary>The views growth left behind, and their release (MV1–MV5); null before the first spill.</summary>
    public SupersededViews? Views => _views;

    /// <summary>Bytes of address space the mapping takes: its views' on the portable file system, the reservation elsewhere, 0 before the first spill (tests and measurements).</summary>
    internal long MappedBytes => _map switch
    {
        null => 0,
        Platform.Portable.PortableMapping portable => portable.MappedBytes,
        var map => map.ReservedLength,
    };

    /// <summary>Deletes a scratch file an earlier process left behind (open): nothing in it is needed.</summary>
    public static void DeleteLeftover(IFileSystem fileSystem, string path)
    {
        if (fileSystem.FileExists(path))
        {
            fileSystem.DeleteFile(path);
        }
    }

    /// <summary>
    /// Writes <paramref name="images"/> (page number, image) into free slots and returns the
    /// slot of each (its offset, and the checksum SC1 checks it by). Contiguous slots are written with one gathered write. Under the page
    /// table's lock (SC4).
    /// </summary>
    public Slot[] Store(IReadOnlyList<KeyValuePair<long, byte[]>> images)
    {
        EnsureOpen();
        Interlocked.Add(ref _writtenBytes, images.Sum(i => (long)i.Value.Length));
        var offsets = new long[images.Count];
        var slots = new Slot[images.Count];
        for (var i = 0; i < images.Count; i++)
        {
            offsets[i] = Allocate(images[i].Value.Length / Constants.PageSize) * Constants.PageSize;
        }

        var buffers = new List<ReadOnlyMemory<byte>>();
        var rented = new List<byte[]>();
        try
        {
            for (var i = 0; i < images.Count;)
            {
                var start = offsets[i];
                var next = start;
                buffers.Clear();
                while (i < images.Count && offsets[i] == next)
                {
                    var (pageNumber, image) = images[i];
                    byte[]? copy = null;
                    var stored = _sealed != null ? _sealed.ForWrite(pageNumber, image, out copy) : image; // SC5
                    if (copy != null)
                    {
                        rented.Add(copy);
                    }

                    buffers.Add(stored);
                    slots[i] = new Slot(offsets[i], Crc32C.Compute(stored.Span), Sealed: copy != null); // SC1

                    next += image.Length;
                    i++;
                }

                _file!.Write(start, buffers);
            }
        }
        finally
        {
            rented.ForEach(Sealing.SealedPages.Return);
        }

        return slots;
    }

    /// <summary>
    /// The image of <paramref name="pageNumber"/> in <paramref name="slot"/>, checked on its first
    /// read (SC1). The span reads the mapping (valid while the slot is not reused: SC2), or in a
    /// sealed store the slot opened, from the scratch file's decrypted-page cache (SC5).
    /// </summary>
    public ReadOnlySpan<byte> Read(long pageNumber, Slot slot, int length)
    {
        var offset = slot.Offset;
        var image = new ReadOnlySpan<byte>(Base + offset, length);
        if (!IsVerified(offset))
        {
            Validate(image, pageNumber, slot);
            MarkVerified(offset);
        }

        return slot.Sealed ? _sealed!.Open(pageNumber, image, Path, offset, cacheKey: offset) : image; // SC5
    }

    /// <summary>
    /// As <see cref="Read"/>, as memory the flusher can hand to a gathered write; checked on every
    /// call, not only the first: the file is never synced, so the OS may write a slot back and read
    /// it again, and this is the last look before its bytes become the data file's only copy.
    /// </summary>
    public ReadOnlyMemory<byte> ReadMemory(long pageNumber, Slot slot, int length)
    {
        var offset = slot.Offset;
        var stored = new ReadOnlySpan<byte>(Base + offset, length);
        Validate(stored, pageNumber, slot);
        if (slot.Sealed)
        {
            var opened = new byte[length]; // SC5: opened for the flusher, which seals it again for the data file (PG7)
            _sealed!.OpenInto(pageNumber, stored, opened, Path, offset);
            return opened;
        }

        MarkVerified(offset);
        return new MappedMemory(Base + offset, length).Memory;
    }

    private void Validate(ReadOnlySpan<byte> image, long pageNumber, Slot slot)
    {
        var actual = Crc32C.Compute(image);
        if (actual != slot.Checksum)
        {
            throw new CorruptionException(Path, slot.Offset,
                $"rule SC1: the slot holding page {pageNumber} has checksum 0x{actual:X8}, the page table recorded 0x{slot.Checksum:X8} when it spilled the version");
        }
    }

    /// <summary>Creates the file and its mapping on the first spill.</summary>
    private void EnsureOpen()
    {
        if (_file != null)
        {
            return;
        }

        ObjectDisposedException.ThrowIf(_deleted, this);
        var file = _fileSystem.Open(Path, FileOpenMode.OpenOrCreate); // owner-only (IFileSystem.Open)
        try
        {
            if (file.Length != 0)
            {
                file.SetLength(0);
            }

            _map = file.MapReadOnly(_reserve);
            _reserve = Math.Min(_reserve, _map.ReservedLength) / Constants.PageSize * Constants.PageSize;
            _base = (nint)_map.BaseAddress;
            _views = new SupersededViews(_map);
            _file = file;
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>Grows the file (preallocated) to hold at least <paramref name="end"/> bytes.</summary>
    private void Grow(long end)
    {
        if (end <= _length)
        {
            return;
        }

        if (end > _reserve)
        {
            throw new IOException($"The scratch file '{Path}' would grow past {_reserve} bytes (MaxDataFileSize) to hold page versions that " +
                "long-lived read transactions keep; end them (StorageEnvironment.OldestSnapshotPin names the oldest) or raise MaxDataFileSize.");
        }

        var step = Math.Clamp(_length, MinGrowth, MaxGrowth);
        var target = Math.Min(_reserve, Math.Max(end, _length + step));
        _file!.Preallocate(target);
        _map!.Cover(target); // the portable file system maps the grown file anew (an old view stays while it may be read: SC3)
        Volatile.Write(ref _base, (nint)_map.BaseAddress);
        Volatile.Write(ref _length, target);
        _views!.Publish(); // MV2: after the base it moved to
        GrowBitmaps(target / Constants.PageSize);
    }

    /// <summary>SC3: gives the file's space back once nothing is allocated or retired in it.</summary>
    public bool TruncateIfUnused()
    {
        if (_file == null || _length == 0 || _usedPages != 0)
        {
            return false;
        }

        try
        {
            _file.SetLength(0);
        }
        catch (IOException) when (OperatingSystem.IsWindows())
        {
            // Windows refuses to truncate a file with a mapped view (ERROR_USER_MAPPED_FILE), and
            // the portable mapping keeps its newest view until the store closes (MM1): the space
            // is given back then, when the file is deleted.
            return false;
        }

        Volatile.Write(ref _length, 0);
        ResetBitmaps();
        return true;
    }

    /// <summary>
    /// A clean close: removes the file's name (the mapping and handle stay for readers that
    /// outlive the store, LC6). Nothing is lost if it fails: the next open deletes it.
    /// </summary>
    public void Delete()
    {
        _deleted = true;
        if (_file != null || _fileSystem.FileExists(Path))
        {
            _fileSystem.DeleteFile(Path);
        }
    }

    public void Dispose()
    {
        _deleted = true;
        _sealed?.Dispose();
        _map?.Dispose();
        _file?.Dispose();
        _map = null;
        _file = null;
        _base = 0;
    }
}
