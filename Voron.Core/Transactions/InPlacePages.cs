using System.Buffers.Binary;
using Voron.Journal;
using Voron.Paging;

namespace Voron.Transactions;

// Design notes — new pages written in place.
//
// A large transaction creates most of its pages (an in-order load's leaves, overflow runs, the
// new halves of splits). Journaling them and flushing them later writes each twice; LMDB writes
// them once. When the commit's new pages that may be written in place (IP1) add up to at least
// the threshold, step 2 of the commit pipeline (Transactions/CommitPipeline.cs) writes them to
// their place in the data file, syncs it, and only then appends the record, which names each of
// them (journal encoding 3, "in the data file") with the CRC32C of its bytes instead of carrying
// them (JournalRecord.cs, R10). They never enter the page table or the flusher's queue: readers
// after the commit find them in the data file, and the flusher has nothing of them to write.
//
//   WriteAndPublish, step 2 (commit order, C1):
//     2a. Reserve the data file up to NextPageNumber (PG5)
//     2b. Choose: the created pages no unflushed commit's record names (IP1); stop unless they
//         reach the threshold (IP3)
//     2c. Pager.WritePages(those), Pager.Sync()                      (IP2: before 2d)
//     2d. Journal.Append(record naming them by checksum)              (J2)
//     3.  PageTable.Publish(the other pages)                          (IP4: not these)
//     4.  flusher.Enqueue(the other pages; every run the record names, for IP1)
//
// Rules:
//   IP1. A page is written in place only if this transaction created it (allocated it: A5 gives
//        it only once no live reader's snapshot can reach it, so no snapshot reads the place
//        while it is written, and every snapshot from this commit on reads it there), and no
//        run named by the record of a commit the flusher still holds (DataFileFlusher.Untouched:
//        its pages, freed pages or in-place pages) overlaps it. Such a commit's record may be
//        replayed after a crash, and the flusher may still write its version of the page, over
//        this one; once it leaves the flusher's queue its versions are in the synced data file,
//        a durable header starts recovery past its record (FL3), and the page table holds no
//        version of it (PT4 removes them before the queue does). Commits are chosen for in
//        commit order (C1), so every earlier commit is queued when a later one chooses.
//   IP2. The pages are durable in the data file before the record that names them is written:
//        a crash before the record leaves bytes in pages that are free in every durable state,
//        and a record that recovery finds valid names pages that are already there. Not in lazy
//        durability, whose commits make nothing durable (each would pay a data-file sync).
//   IP3. Only when the pages add up to InPlaceNewPagesThreshold bytes: the in-place write costs
//        one more data-file sync per commit, which a small commit must not pay (the `sql` and
//        `merge` rows commit a few pages each). The default, 4 MiB, is where the sync costs less
//        than journaling the bytes did on the machines measured: an fdatasync of 3–4 ms against
//        ~900 MiB/s of sequential writes (docs/results/2026-12-07-in-place-pages.md); above it
//        the flusher's second write of the pages is saved as well.
//   IP4. A page written in place has no page table version and is not in the flusher's batch:
//        the data file already holds it, synced. A later commit that changes it journals its
//        change as any other (a diff against this version, FL10's masks on top of it).
//   IP5. Recovery checks every named page against its checksum once the replay has ended,
//        unless a later replayed record wrote one of its pages (R10); a page that fails is a
//        CorruptionException naming the data file, the offset and the record — IP2 makes it
//        damage, never a crash's doing.
//   IP6. An archived record must restore its transaction by itself (JA5), and a named page is
//        not in it: a store with a journal archive journals every page, and point-in-time
//        restore refuses a record that names pages (ReplayPage) rather than skip them. A hot
//        backup copies snapshots, not the journal (BK5): in-place pages are in the data file it
//        reads, or free in its snapshot (a free page's bytes are anything).
//   IP7. In a sealed store the pager seals the pages on their way to the file (PG7), so the
//        entry's checksum is of the sealed bytes as written (Pager.WritePages gives them back):
//        recovery checks them without the key (R10), and reads open them as any page.

/// <summary>Writes a commit's new pages in place when IP1–IP3 allow it (the notes above).</summary>
internal sealed class InPlacePages
{
    /// <summary>IP3: the default threshold.</summary>
    public const long DefaultThreshold = 4L << 20;

    private readonly Pager _pager;
    private readonly Func<IReadOnlyList<PageRun>, bool[]> _untouched;
    private readonly long _threshold;
    private long _pagesWritten;
    private long _commits;

    /// <param name="pager">The data file.</param>
    /// <param name="untouched">IP1: for each run, whether no record the flusher still holds names a page of it.</param>
    /// <param name="threshold">IP3: the bytes the chosen pages must reach; long.MaxValue turns the path off.</param>
    public InPlacePages(Pager pager, Func<IReadOnlyList<PageRun>, bool[]> untouched, long threshold)
    {
        _pager = pager;
        _untouched = untouched;
        _threshold = threshold;
    }

    /// <summary>Pages written in place so far (tests, statistics).</summary>
    public long PagesWritten => Interlocked.Read(ref _pagesWritten);

    /// <summary>Commits that wrote pages in place so far.</summary>
    public long Commits => Interlocked.Read(ref _commits);

    /// <summary>
    /// Step 2b–2c: writes the pages IP1–IP3 choose and syncs the data file (IP2), marks them on
    /// <paramref name="prepared"/> (IP4), and returns the entries the record gets: the prepared
    /// ones, with those pages named by checksum. Any failure must fail the store (C5).
    /// </summary>
    public IReadOnlyList<JournalPage> Write(PreparedCommit prepared)
    {
        var created = prepared.Created;
        if (created == null || _threshold == long.MaxValue)
        {
            return prepared.JournalPages;
        }

        var pages = prepared.Pages;
        if (prepared.JournalPages.Length != pages.Count)
        {
            return prepared.JournalPages; // entries not one per page: nothing to replace them by
        }

        var indexes = new List<int>();
        var runs = new List<PageRun>();
        long bytes = 0;
        for (var i = 0; i < pages.Count; i++)
        {
            if (created.Contains(pages[i].Key) && prepared.JournalPages[i].PageNumber == pages[i].Key)
            {
                indexes.Add(i);
                runs.Add(new PageRun(pages[i].Key, pages[i].Value.Length / Constants.PageSize));
                bytes += pages[i].Value.Length;
            }
        }

        if (bytes < _threshold)
        {
            return prepared.JournalPages; // IP3
        }

        var untouched = _untouched(runs); // IP1
        var chosen = new HashSet<long>();
        var images = new List<KeyValuePair<long, ReadOnlyMemory<byte>>>();
        bytes = 0;
        for (var j = 0; j < indexes.Count; j++)
        {
            if (untouched[j])
            {
                var (pageNumber, image) = pages[indexes[j]];
                chosen.Add(pageNumber);
                images.Add(new(pageNumber, image));
                bytes += image.Length;
            }
        }

        if (bytes < _threshold)
        {
            return prepared.JournalPages; // IP3
        }

        var stored = new uint[images.Count]; // IP7: the checksums of the bytes as written, sealed in a sealed store
        _pager.WritePages(images, storedChecksums: stored); // sorted: Pages is sorted by page number
        _pager.Sync(); // IP2: before the record is written
        var entries = (JournalPage[])prepared.JournalPages.Clone();
        var written = 0;
        for (var j = 0; j < indexes.Count; j++)
        {
            var i = indexes[j];
            if (!untouched[j])
            {
                continue;
            }

            var (pageNumber, image) = pages[i];
            var checksum = new byte[JournalRecord.InDataFileLength];
            BinaryPrimitives.WriteUInt32LittleEndian(checksum, stored[written++]);
            entries[i] = new JournalPage(pageNumber, checksum, JournalPageEncoding.InDataFile, image.Length / Constants.PageSize);
        }

        prepared.MarkInPlace(chosen, bytes);
        Interlocked.Add(ref _pagesWritten, bytes / Constants.PageSize);
        Interlocked.Increment(ref _commits);
        return entries;
    }
}

/// <summary>Pages [First, First + Count): an entry a journal record names.</summary>
internal readonly record struct PageRun(long First, int Count);
