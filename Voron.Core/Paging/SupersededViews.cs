using Voron.Platform;

namespace Voron.Paging;

// Design notes — releasing the views a moving mapping leaves behind.
//
// The portable file system cannot reserve address space past the end of a file, so its mapping
// maps the grown file anew and its base address moves (Platform/Portable/PortableMapping.cs,
// MM1). Readers keep addresses into the view they read: the spans Pager.ReadPage and
// ScratchFile.Read return, and the address of the leaf a cursor is on (BTreeCursor). Kept until
// close, the views of a file add up to the square of its size; here each owner of a mapping (the
// pager, the scratch file) releases a view once no one can hold an address into it, with the
// generations the page table already uses for scratch slots and page buffers (PageTable PT7, PT9;
// Transactions/TransactionRegistry.Generations.cs).
//
//   owner, after a growth moved the base:   publish the new base, then Publish()
//   maintenance pass (the flusher, under its flush lock, with the retention it captured):
//     1. release every stamp whose generation is older than the oldest live transaction's
//     2. stamp the views published as left behind with the current generation
//   no store yet, or none any more (open, recovery, restore): ReleaseAll()
//
// Invariants:
//   MV1. An address into a mapping is taken only by a transaction — a reader, an explicit writer,
//        or a merged batch, each counted in the generation current when it began until it ends —
//        and used only while it is live; or by the flusher, which reads scratch slots while a
//        flush writes them, under its flush lock; or by the open and a restore, which hold none
//        across a growth (the open reads the identity page before recovery grows the file, and
//        the free-space summary after it released the views recovery left; recovery and replay
//        read and write through the file).
//   MV2. An owner counts a view as left behind (Published) only after it published the base
//        address of the view that replaced it. A transaction reads the base after it registered
//        under the readers' lock; so one that registers after a stamp was taken never holds an
//        address into a view the stamp counts.
//   MV3. A stamp takes the generation current during the pass. The generation advances only when
//        a flush removes versions (TransactionRegistry.RetireGeneration), under the flush lock the
//        pass holds, so every transaction that began before the stamp's views were left behind
//        began in that generation or an older one.
//   MV4. A stamp is released only by a later pass, from that pass's capture, when its generation is
//        older than the oldest generation with a live transaction: every transaction of it has
//        ended (MV3), none that began since holds its views (MV2), and the flusher reads no scratch
//        slot outside a flush (MV1). So no view is unmapped while anyone can read through it.
//   MV5. The newest view is never released (MM1); a store that stops growing keeps one view per
//        mapping once two passes ran with no transaction live across them. A store that never
//        runs a pass (BackgroundFlush off and no FlushToDataFile) keeps its views until close.

/// <summary>The views one mapping left behind and when they may go (MV1–MV5 above).</summary>
internal sealed class SupersededViews(IMappedRegion map)
{
    private readonly Queue<(long Generation, long Count)> _stamps = new(); // maintenance pass only
    private long _published; // MV2
    private long _stamped;
    private long _released;

    /// <summary>Views published as left behind (MV2).</summary>
    public long Published => Volatile.Read(ref _published);

    /// <summary>Views unmapped so far.</summary>
    public long Released => Volatile.Read(ref _released);

    /// <summary>MV2: called by the owner after it published the base address the growth moved to.</summary>
    public void Publish() => Volatile.Write(ref _published, map.SupersededViews);

    /// <summary>
    /// A maintenance pass (MV4): releases what the stamps of earlier passes allow under
    /// <paramref name="oldestLiveGeneration"/>, then stamps what was published since with
    /// <paramref name="currentGeneration"/> (MV3). Both from the pass's one capture.
    /// </summary>
    public void Maintain(long oldestLiveGeneration, long currentGeneration)
    {
        while (_stamps.TryPeek(out var stamp) && stamp.Generation < oldestLiveGeneration)
        {
            _stamps.Dequeue();
            Release(stamp.Count);
        }

        var published = Published;
        if (published > _stamped)
        {
            _stamps.Enqueue((currentGeneration, published));
            _stamped = published;
        }
    }

    /// <summary>MV1: where nobody holds an address into the mapping (the open before the store is handed out, a restore).</summary>
    public void ReleaseAll()
    {
        Publish();
        Release(Published);
    }

    private void Release(long count)
    {
        if (count > _released)
        {
            map.ReleaseSuperseded(count);
            Volatile.Write(ref _released, count);
        }
    }
}
