using System.Buffers;
using System.Diagnostics;
using Voron.Platform;

namespace Voron.Journal;

// The journal: the write-ahead log of committed write transactions.
//
// The commit path hands each transaction's pages and the 64-byte environment state to
// JournalWriter.Append, which makes them durable as one record before the commit is acknowledged.
// The flusher later copies the pages to the data file, syncs it, records the synced position in
// the header file, and calls ReleaseBefore. On open, JournalReader.Recover replays every record
// after the synced position and finds where the log ends; a new JournalWriter resumes there.
// The record format is in JournalRecord.cs (FORMAT block), the file names in JournalFiles.cs,
// the torn-tail / corruption decision of recovery (D1..D5) in JournalReader.cs.
//
// Invariants (code and asserts cite them):
//   J1. Records are in transaction-id order with no gaps: the record after tx n holds tx n + 1
//       and starts where tx n's record ends, or at offset 0 of the file numbered one higher
//       (rotation). Append refuses any other transaction id.
//   J2. A record is acknowledged only after FlushData of its file returns: Append returns only
//       then, and nothing else tells the caller the record is there.
//   J3. A record is written only after every earlier record is durable: Append writes the whole
//       record with one positional write and flushes it before returning, and appends never run
//       concurrently. So a crash tears at most the last record, and an intact later record proves
//       that an earlier broken one had been durable and was damaged afterwards (D5, J11).
//   J4. A record never spans files, and a file's size and name are durable (Preallocate,
//       FlushData, SyncDirectory) before its first record is written into it: a durable record
//       never disappears with its file's size or directory entry.
//   J5. The writer resumes exactly where recovery says the log ends, overwriting a discarded torn
//       tail in place, after deleting every journal file numbered beyond that position (D5 showed
//       they hold nothing with tx >= the next transaction).
//   J6. A journal file is released (deleted) only after every record in it is synced to the data
//       file and a durable header records a recovery start past it. Released files are never
//       reused: a recycled file's old bytes would sit where a torn record's unwritten sectors
//       must read as zeros (J10), and a stored value's bytes in them could pose as records.
//   J7. Fail-stop: once a write, a flush or the preparation of a file fails, the writer accepts
//       nothing more (EnvironmentFailedException); the tail's state is unknown until recovery
//       decides it on the next open.
//   J8. Bytes read from disk are validated, never asserted: JH1..JH3 and R1..R9 in JournalRecord.cs,
//       each failure a CorruptionException naming the file, the offset and the rule.
//   J9. Deterministic: file numbers, sizes and record layouts depend only on the calls made; there
//       is no clock. The only randomness is the store id drawn once when the store is created,
//       which the checksums include (so checksum bytes differ from store to store).
//   J10. Zeros ahead of the log: journal space past the end of the log reads as zeros before a
//       record is written into it — a new file is preallocated (zeros), the writer fills the
//       space from the log's end to the next 1 MiB boundary with zeros before a record goes
//       there (PrewriteZeros, so the record's fdatasync need not write the inode), and a resumed
//       file's tail is zeroed before the resumed writer starts (ClearTail). It never
//       writes over a record. Recovery relies on it: a torn record's unwritten sectors are zeros.
//   J11. Every record says how far the journal was durable when it was written (DurableThrough):
//       in durable mode the transaction before it (J3); in lazy mode the last one a flush (Sync,
//       a rotation, the open) had made durable. Recovery reads a later record's DurableThrough as
//       proof that an earlier broken record had been durable (D5).
//   J12. A full disk shrinks what the writer asks for rather than failing at once: a new file that
//       cannot be preallocated at the configured size is tried at half the size, down to the
//       record it must hold; a resumed file stays at the size it has.
//   J13. The writer serializes its callers itself: Append (a commit), Sync (the lazy mode's timer,
//       a close), ReleaseBefore (the flusher) and Statistics take its lock, so no caller needs
//       one of its own and a release never deletes a file an append is rotating into.
//       ArchiveBefore copies files that are already left (J6) without it: commits go on.
//   J14. A file can be left before it is full (StartNewFile: a store that ships its archive
//       leaves a file once its first record is older than ArchiveMaxDelay, Archive/TimelyRelease.cs
//       — the clock is the caller's, J9). The end of the log in a file the writer has left is the
//       same recovery start as offset 0 of the next file (J1: the next record goes there; J4: that
//       file is durable before the writer moves to it), so the flusher's header names the next
//       file's start (Continuation) and the left file is released at that flush (J6), without
//       waiting for a record in the next file to be flushed.
//
// Journal file lifecycle (each transition names the method that performs it):
//
//                     ctor / Rotate: create new, Preallocate (J12), FlushData, SyncDirectory
//     (no file) ------------------------------------------------------------> current --+
//                                                                                     | Rotate: the
//                                                                                     | next record
//         deleted <------------------- written <----------------------------------------+ does not fit,
//                   ReleaseBefore: synced past it (J6)                                    or StartNewFile
//                                                                                         (J14: aged)
//     any journal file numbered beyond the recovered end --ctor--> deleted (J5)
//     a spare (*.recycled) left by format version 1 --ctor--> deleted

// Threading: J13. The constructors, Dispose and ArchiveBefore are called by one owner at a time
// (the open, the close, the flusher's thread).

/// <summary>
/// Appends records to the journal files of one directory and deletes the files the data file no
/// longer needs. See the invariants above.
/// </summary>
internal sealed partial class JournalWriter : IDisposable
{
    /// <summary>The default size of a journal file.</summary>
    public const long DefaultFileSize = 64L << 20;

    /// <summary>The record buffer is kept between appends up to this size; a larger record borrows
    /// one from the shared pool until the next append (Rent), so one huge transaction does not pin
    /// its memory for the writer's life.</summary>
    private const int RetainedBufferLimit = 8 << 20;

    /// <summary>Preallocated journal space is zero-filled ahead of the records in chunks of this size (PrewriteZeros).</summary>
    public const int PrewriteChunk = 1 << 20;

    private static readonly byte[] Zeros = new byte[PrewriteChunk];

    private readonly object _lock = new(); // J13
    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly ulong _storeId;
    private readonly long _fileSize;
    private readonly JournalSealing? _sealing; // SL8: seals every record's stored payload; null for a store that is not sealed
    private IStorageFile _file;
    private long _fileLength;
    private long _writtenUpTo; // bytes of _file known to hold written blocks (see PrewriteZeros)
    private long _fileNumber;
    private long _offset;
    private long _nextTransactionId;
    private long _durableThrough; // J11: every record up to this transaction is durable
    private long _lastCommitTime; // CommitTime of the last record encoded (FORMAT block in JournalRecord.cs): never goes back
    private byte[] _buffer = [];
    private readonly List<byte[]> _rented = []; // borrowed from the shared pool until the next append (Rent)
    private byte[] _scratch = [];
    private long _bytesWritten;
    private bool _unsynced; // lazy records written to _file since its last FlushData
    private long _encodeTicks;
    private bool _previousCompressionPaid; // the last payload compressed whole was stored compressed: the next skips the sample
    private Exception? _failure;
    private bool _disposed;

    /// <summary>Why the journal refuses appends (a write or flush of it failed, whatever the exception), or null.</summary>
    internal Exception? Failure => Volatile.Read(ref _failure);

    /// <summary>The store id every record's checksums are bound to (FORMAT block in JournalRecord.cs).</summary>
    public ulong StoreId => _storeId;

    /// <summary>Resumes after recovery: at <see cref="JournalRecoveryResult.End"/>, with the next
    /// transaction id, after zeroing whatever a crash left past the end of the log (J10).</summary>
    public JournalWriter(IFileSystem fileSystem, string directory, ulong storeId, JournalRecoveryResult recovered, long fileSize = DefaultFileSize,
        JournalSealing? sealing = null)
        : this(fileSystem, directory, storeId, (recovered ?? throw new ArgumentNullException(nameof(recovered))).End, recovered.NextTransactionId, fileSize,
            sealing)
    {
        if (!recovered.TailIsClean)
        {
            ClearTail();
        }
    }

    /// <summary>
    /// Resumes writing at <paramref name="resumeAt"/>, which must be where recovery over the same
    /// directory found the end of the log (J5): journal files numbered above it are deleted. Every
    /// record before <paramref name="nextTransactionId"/> must be durable (J11; the open flushes
    /// every journal file before recovery), and the file's bytes from <paramref name="resumeAt"/>
    /// on must be zeros (J10).
    /// </summary>
    /// <param name="fileSystem">The file system holding the journal files.</param>
    /// <param name="directory">The store's directory, where the journal files are.</param>
    /// <param name="storeId">The store's id (the header file's StoreId): every checksum is bound to it.</param>
    /// <param name="resumeAt">Where the next record goes.</param>
    /// <param name="nextTransactionId">The id the next record must carry (J1).</param>
    /// <param name="fileSize">The size of each journal file, a positive multiple of 4096; a record
    /// larger than this gets a file of its own size.</param>
    /// <param name="sealing">Seals every record's payload after compression (SL8), or null. The writer uses it
    /// under its lock; the caller keeps it alive while the writer is, and disposes it.</param>
    public JournalWriter(IFileSystem fileSystem, string directory, ulong storeId, JournalPosition resumeAt, long nextTransactionId,
        long fileSize = DefaultFileSize, JournalSealing? sealing = null)
    {
        ArgumentNullException.ThrowIfNull(fileSystem);
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentOutOfRangeException.ThrowIfNegative(resumeAt.FileNumber);
        ArgumentOutOfRangeException.ThrowIfNegative(resumeAt.Offset);
        ArgumentOutOfRangeException.ThrowIfNegative(nextTransactionId);
        ArgumentOutOfRangeException.ThrowIfLessThan(fileSize, JournalRecord.Alignment);
        if (resumeAt.Offset % JournalRecord.Alignment != 0 || fileSize % JournalRecord.Alignment != 0)
        {
            throw new ArgumentException($"Journal positions and file sizes are multiples of {JournalRecord.Alignment}: {resumeAt}, file size {fileSize}.");
        }

        _fileSystem = fileSystem;
        _directory = directory;
        _storeId = storeId;
        _fileSize = fileSize;
        _sealing = sealing;
        _nextTransactionId = nextTransactionId;
        _durableThrough = nextTransactionId - 1;
        _fileSystem.CreateDirectory(directory);
        DeleteFilesAfter(resumeAt.FileNumber);
        _file = OpenResumeFile(resumeAt);
        _fileNumber = resumeAt.FileNumber;
        _offset = resumeAt.Offset;
        _fileLength = _file.Length;
        _writtenUpTo = _offset; // what lies after the log's end is not known to be written
    }

    /// <summary>Where the next record will be written, unless it does not fit and the writer rotates.</summary>
    public JournalPosition Position => new(_fileNumber, _offset);

    /// <summary>The transaction id the next <see cref="Append(long, ReadOnlySpan{byte}, IReadOnlyList{JournalPage})"/> must carry (J1).</summary>
    public long NextTransactionId => _nextTransactionId;

    /// <summary>The configured journal file size.</summary>
    public long FileSize => _fileSize;

    /// <summary>
    /// Writes transaction <paramref name="transactionId"/> as one record — the full image of each
    /// page and the opaque <paramref name="state"/> — and makes it durable. When this returns the
    /// transaction may be acknowledged (J2); when it throws, nothing may be, and the writer is
    /// failed (J7). The spans and images are read during the call only.
    /// </summary>
    /// <param name="transactionId">Must be <see cref="NextTransactionId"/> (J1).</param>
    /// <param name="state">Exactly 64 bytes of environment state, stored uninterpreted.</param>
    /// <param name="pages">Each page's number (> 0) and image (a positive multiple of the page size).</param>
    /// <returns>Where the record starts and ends: the end is the next record's position in this file.</returns>
    public JournalRecordLocation Append(long transactionId, ReadOnlySpan<byte> state, IReadOnlyList<JournalPage> pages) =>
        Append(transactionId, state, pages, compress: false, sync: true);

    /// <summary>
    /// As <see cref="Append(long, ReadOnlySpan{byte}, IReadOnlyList{JournalPage})"/>, choosing the
    /// stored form: with <paramref name="compress"/> the payload is LZ4-compressed when that pays
    /// (the compression rule in JournalRecord.cs); without <paramref name="sync"/> (lazy mode) the
    /// record is written but not flushed — it is marked Lazy, and <see cref="Sync"/> makes it durable.
    /// </summary>
    /// <remarks><c>commitTime</c> is the record's commit time (UTC Unix milliseconds, FORMAT block in JournalRecord.cs), read
    /// from the clock by the caller (J9: the journal has none); 0 = unknown. It is kept from going below the previous record's.</remarks>
    public JournalRecordLocation Append(long transactionId, ReadOnlySpan<byte> state, IReadOnlyList<JournalPage> pages, bool compress, bool sync,
        long commitTime = 0)
    {
        lock (_lock) // J13
        {
            return AppendRecord(transactionId, state, pages, compress, sync, commitTime);
        }
    }

    private JournalRecordLocation AppendRecord(long transactionId, ReadOnlySpan<byte> state, IReadOnlyList<JournalPage> pages, bool compress, bool sync,
        long commitTime)
    {
        ThrowIfUnusable();
        ReturnRented(); // the previous append's, if it was larger than RetainedBufferLimit
        ArgumentNullException.ThrowIfNull(pages);
        if (transactionId != _nextTransactionId)
        {
            throw new ArgumentException($"J1: the journal expects transaction {_nextTransactionId} next, not {transactionId}.", nameof(transactionId));
        }

        if (state.Length != JournalRecord.StateSize)
        {
            throw new ArgumentException($"The state is {JournalRecord.StateSize} bytes, not {state.Length}.", nameof(state));
        }

        CheckPages(pages);
        var payloadSize = JournalRecord.MeasurePayload(pages);
        var recordNeeds = JournalRecord.RecordSize(payloadSize + (_sealing is null ? 0 : Sealing.SealFormat.RecordOverhead));
        if (recordNeeds > JournalRecord.MaxRecordSize)
        {
            throw new ArgumentException(
                $"Transaction {transactionId} needs a {recordNeeds}-byte journal record; the largest is {JournalRecord.MaxRecordSize}.", nameof(pages));
        }

        var encodeStart = Stopwatch.GetTimestamp();
        var flags = sync ? JournalRecordFlags.None : JournalRecordFlags.Lazy;
        var raw = (int)payloadSize;
        var stored = raw;
        // The entries go straight into the record; compression, when it pays, replaces them. A
        // sealed record's payload starts after the nonce and grows by the nonce and the tag (SL8).
        var sealOverhead = _sealing is null ? 0 : Sealing.SealFormat.RecordOverhead;
        var payloadOffset = _sealing is null ? JournalRecord.HeaderSize : JournalSealing.PayloadOffset;
        var buffer = RecordBuffer((int)JournalRecord.RecordSize(raw + sealOverhead));
        var payload = buffer.AsSpan(payloadOffset, raw);
        JournalRecord.EncodeEntries(payload, pages);
        if (compress && raw >= JournalRecord.CompressionThreshold && (_previousCompressionPaid || SampleCompresses(payload)))
        {
            var bound = Compression.Lz4Block.MaxCompressedLength(raw);
            var scratch = ScratchBuffer(bound);
            var compressed = Compression.Lz4Block.Compress(payload, scratch.AsSpan(0, bound));
            _previousCompressionPaid = JournalRecord.CompressionPays(raw, compressed);
            if (_previousCompressionPaid)
            {
                scratch.AsSpan(0, compressed).CopyTo(payload);
                flags |= JournalRecordFlags.Lz4Compressed;
                stored = compressed;
            }

            if (_sealing is not null)
            {
                scratch.AsSpan(0, compressed).Clear(); // SL10: no plaintext left behind in the kept buffer
            }
        }

        if (_sealing is not null)
        {
            flags |= JournalRecordFlags.Sealed;
            stored += sealOverhead;
        }

        var record = buffer.AsSpan(0, (int)JournalRecord.RecordSize(stored));
        _encodeTicks += Stopwatch.GetTimestamp() - encodeStart;
        var recordSize = record.Length;
        var stamped = commitTime > 0 ? Math.Max(_lastCommitTime, commitTime) : 0;
        try
        {
            if (_fileLength - _offset < recordSize)
            {
                if (_offset == 0)
                {
                    GrowForFirstRecord(recordSize); // JA8
                }
                else
                {
                    Rotate(recordSize);
                }
            }

            // The checksums name the file the record goes into, so the header is built after the rotation.
            encodeStart = Stopwatch.GetTimestamp();
            JournalRecord.EncodeHeader(record, new RecordBinding(_storeId, _fileNumber), transactionId, state, pages.Count, stored, raw, flags, _durableThrough,
                stamped, _sealing);
            _encodeTicks += Stopwatch.GetTimestamp() - encodeStart;
            if (_offset + recordSize > _writtenUpTo)
            {
                PrewriteZeros(_offset + recordSize);
            }

            // J3: one positional write of the whole record, durable before we return (J2) —
            // except in lazy mode, where Sync (called on a timer) makes it durable later.
            _file.Write(_offset, record);
            _lastCommitTime = Math.Max(_lastCommitTime, stamped);
            if (sync)
            {
                _file.FlushData();
                _durableThrough = transactionId; // J11
            }

            _unsynced |= !sync;
        }
        catch (Exception e)
        {
            _failure = e;
            throw;
        }

        _bytesWritten += recordSize;
        var start = Position;
        _offset += recordSize;
        _nextTransactionId++;
        Debug.Assert(_offset <= _fileLength, "J4: a record never spans files");
        return new JournalRecordLocation(start, Position) { CommitTime = stamped };
    }

    /// <summary>
    /// The compression rule's sample (JournalRecord.cs): a payload longer than
    /// <see cref="JournalRecord.CompressionSample"/> is compressed only if slices spread over it
    /// (<see cref="JournalRecord.SampleSlices"/>) compress well enough, so incompressible data
    /// costs one short LZ4 pass. Skipped while the payloads compress (the rule's second part).
    /// </summary>
    private bool SampleCompresses(ReadOnlySpan<byte> payload)
    {
        if (payload.Length <= JournalRecord.CompressionSample)
        {
            return true;
        }

        var bound = Compression.Lz4Block.MaxCompressedLength(JournalRecord.CompressionSample / JournalRecord.CompressionSampleSlices);
        var scratch = ScratchBuffer(bound).AsSpan(0, bound);
        var compressed = 0;
        foreach (var slice in JournalRecord.SampleSlices(payload.Length))
        {
            compressed += Compression.Lz4Block.Compress(payload[slice], scratch);
        }

        if (_sealing is not null)
        {
            scratch.Clear(); // SL10
        }

        return JournalRecord.CompressionPays(JournalRecord.CompressionSample, compressed);
    }

    /// <summary>
    /// Writes zeros over the preallocated space from where the log ends to the next chunk boundary
    /// at or past <paramref name="end"/>. Preallocated blocks are "unwritten" to the file system
    /// (ext4, XFS): the first write into one changes the file's block map, so the fdatasync after it
    /// must write the inode too, and a small durable write costs more there than in written space
    /// (the machine experiment; docs/results/2026-12-06-code-comment-measurements.md). Zeros are
    /// what preallocated space reads as anyway, so recovery sees the same bytes either way; the
    /// zeros are made durable by the fdatasync of the record that follows. Only space past the
    /// log's end (and past any record) is written.
    /// <para>
    /// A record of a chunk or more is zero-filled first too, although its own write would cover
    /// the space: the zeros are overwritten in the page cache before they reach the disk (the
    /// storage bytes are the same either way), and one large write into preallocated space that
    /// nothing had written is several times slower than the zeros and the write over them
    /// together (cause not established; docs/results/2026-12-06-code-comment-measurements.md).
    /// </para>
    /// </summary>
    private void PrewriteZeros(long end)
    {
        var from = Math.Max(_writtenUpTo, _offset);
        var to = Math.Min(_fileLength, (end + PrewriteChunk - 1) / PrewriteChunk * PrewriteChunk);
        for (var at = from; at < to; at += PrewriteChunk)
        {
            _file.Write(at, Zeros.AsSpan(0, (int)Math.Min(PrewriteChunk, to - at)));
        }

        _writtenUpTo = to;
    }

    /// <summary>
    /// J10: zeroes (and syncs) the rest of the current file after the end of the log, which
    /// recovery found not all zeros: a torn record, or lazy records a power loss kept after one it
    /// lost. The writer resumes over them, and a torn record's unwritten sectors must read as
    /// zeros again; a stale record N + 1 left there could otherwise sit right after a new record N
    /// of the same size and be replayed as its successor.
    /// </summary>
    private void ClearTail()
    {
        try
        {
            for (var at = _offset; at < _fileLength; at += PrewriteChunk)
            {
                _file.Write(at, Zeros.AsSpan(0, (int)Math.Min(PrewriteChunk, _fileLength - at)));
            }

            _file.FlushData();
        }
        catch
        {
            _file.Dispose();
            throw;
        }

        _writtenUpTo = _fileLength;
    }

    /// <summary>
    /// Bytes of records written (headers, payloads, padding), and the time spent building them (entries, compression,
    /// checksums), since this writer was created; read together while commits go on (J13).
    /// </summary>
    public (long Bytes, TimeSpan EncodeTime) Statistics()
    {
        lock (_lock)
        {
            return (_bytesWritten, Stopwatch.GetElapsedTime(0, _encodeTicks));
        }
    }

    /// <summary>Makes every record written so far durable (the lazy mode's periodic flush, a close).</summary>
    public void Sync()
    {
        lock (_lock) // J13
        {
            ThrowIfUnusable();
            try
            {
                _file.FlushData();
                _unsynced = false;
                _durableThrough = _nextTransactionId - 1; // J11: earlier files were flushed when the writer left them
            }
            catch (Exception e)
            {
                _failure = e;
                throw;
            }
        }
    }

    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            _file.Dispose();
            ReturnRented();
        }
    }

    private static void CheckPages(IReadOnlyList<JournalPage> pages)
    {
        for (var i = 0; i < pages.Count; i++)
        {
            var page = pages[i];
            var length = page.Image.Length;
            if (page.Encoding != JournalPageEncoding.FullImage)
            {
                if (page.PageNumber <= 0 || page.DiffPageCount <= 0 || page.DiffPageCount > JournalRecord.MaxEntryPageCount ||
                    length > (long)page.DiffPageCount * Constants.PageSize ||
                    (page.Encoding == JournalPageEncoding.InDataFile && length != JournalRecord.InDataFileLength))
                {
                    throw new ArgumentException($"Page {i} of the transaction is a {length}-byte diff of {page.DiffPageCount} pages at page {page.PageNumber}.", nameof(pages));
                }

                continue;
            }

            if (page.PageNumber <= 0 || length == 0 || length % Constants.PageSize != 0 ||
                page.PageCount > JournalRecord.MaxEntryPageCount || page.PageNumber > long.MaxValue - page.PageCount)
            {
                throw new ArgumentException(
                    $"Page {i} of the transaction has number {page.PageNumber} and a {length}-byte image; " +
                    $"page numbers are > 0 and images are whole pages of {Constants.PageSize} bytes.", nameof(pages));
            }
        }
    }

    /// <summary>A buffer of at least <paramref name="size"/> bytes; every byte of the record is
    /// written by Encode, so its old contents do not matter.</summary>
    private byte[] RecordBuffer(int size)
    {
        if (size > RetainedBufferLimit)
        {
            return Rent(size);
        }

        if (_buffer.Length < size)
        {
            _buffer = GC.AllocateUninitializedArray<byte>(Math.Min(RetainedBufferLimit, Math.Max(size, _buffer.Length * 2)));
        }

        return _buffer;
    }

    /// <summary>A buffer for the uncompressed payload when compressing; kept like the record buffer.</summary>
    private byte[] ScratchBuffer(int size)
    {
        if (size > RetainedBufferLimit)
        {
            return Rent(size);
        }

        if (_scratch.Length < size)
        {
            _scratch = GC.AllocateUninitializedArray<byte>(Math.Min(RetainedBufferLimit, Math.Max(size, _scratch.Length * 2)));
        }

        return _scratch;
    }

    /// <summary>
    /// A buffer for a record larger than the writer keeps, from <see cref="ArrayPool{T}.Shared"/>
    /// until the next append or dispose: a bulk load commits one such record after another, and a
    /// fresh array each time would have the kernel fault in and clear every page of it again, a
    /// visible share of a load's time (docs/results/2026-12-06-code-comment-measurements.md).
    /// The pool lets go of it under memory pressure.
    /// </summary>
    private byte[] Rent(int size)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(size);
        _rented.Add(buffer);
        return buffer;
    }

    private void ReturnRented()
    {
        foreach (var buffer in _rented)
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        _rented.Clear();
    }

    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_failure is not null)
        {
            throw new EnvironmentFailedException(_directory, _failure);
        }
    }
}
