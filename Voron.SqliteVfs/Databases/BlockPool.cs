namespace Voron.SqliteVfs.Databases;

// Design notes — the 8 KiB block buffers of write sets and versions.
//
// A write set takes a buffer per block it writes (WriteSet.Modify). Until V7 submits it the set
// is private to the connection that holds the write lock; once submitted its buffers are the
// version's blocks, which the merged operation copies into the store's pages and which every
// snapshot that includes the version reads (Snapshot.Find hands out spans into them). A buffer
// goes back to the pool only when no reader can reach it:
//
// WB1. A write set's buffer that never becomes a version's block is returned when the set lets
//      go of it: a block DropUnchanged finds equal to the snapshot's, a block Truncate cuts away,
//      every block of a transaction that rolls back, closes, or fails before it is submitted.
//      Only the connection's own thread ever read them.
// WB2. A submitted version's buffers are returned when the version retires: its store commit has
//      completed (durable or failed: the merged operation, which may run more than once (merger
//      M1), never runs again) and no snapshot includes it. DatabaseVersion counts these holders:
//      one for the store commit, released once when it completes (DatabaseState.Completed), and
//      one per snapshot that lists it, taken when the snapshot is built and released when it is
//      disposed. A snapshot takes its holds with TryAcquire, which fails once the count reached
//      zero: TakeNewest then begins a new store read transaction, which holds the retired
//      version's commit (it completed only after the store published it).
// WB3. A buffer from the pool holds old bytes: Modify fills every byte of it before anyone reads
//      it (SQLite's whole-block write, the snapshot's block, or zeros for a block this
//      transaction cut away). Debug builds fill a returned buffer with 0xDB, so a read that
//      outlived its buffer shows up as bytes no model holds.
//
// The pool keeps at most MaxPooled buffers (2 MiB); more are left to the collector.

/// <summary>WB1–WB3: the block buffers of one database's write sets and versions.</summary>
internal sealed class BlockPool
{
    private const int MaxPooled = 256;

    private readonly Stack<byte[]> _free = new();
    private long _allocated;
    private long _reused;
    private long _returned;

    /// <summary>Buffers made new, taken from the pool, and given back (tests, diagnostics).</summary>
    internal (long Allocated, long Reused, long Returned) Counts =>
        (Interlocked.Read(ref _allocated), Interlocked.Read(ref _reused), Interlocked.Read(ref _returned));

    /// <summary>A block buffer holding any bytes (WB3: the caller fills all of it).</summary>
    public byte[] Rent()
    {
        lock (_free)
        {
            if (_free.TryPop(out var buffer))
            {
                _reused++;
                return buffer;
            }
        }

        Interlocked.Increment(ref _allocated);
        return new byte[PageFile.BlockSize];
    }

    /// <summary>WB1, WB2: gives back a buffer nobody can read any more.</summary>
    public void Return(byte[] buffer)
    {
#if DEBUG
        buffer.AsSpan().Fill(0xDB); // WB3: a read of a returned buffer shows up
#endif
        lock (_free)
        {
            _returned++;
            if (_free.Count < MaxPooled)
            {
                _free.Push(buffer);
            }
        }
    }
}
