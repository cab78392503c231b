using System.Diagnostics;
using Voron.Platform;

namespace Voron.Journal;

// Recovery: replays the journal from the position the data file was last synced to, and decides
// where the log ends. The record format and its validity rules (JH1..JH3, R1..R9, torn and damaged
// records) are in JournalRecord.cs; the writer's invariants (J1..J12) that make the decision sound
// are in JournalWriter.cs.
//
// Torn tail or corruption? A crash can interrupt only the last write (J3: a record is written
// only after every earlier record is durable — in lazy mode, only records after the last one a
// flush made durable), and it leaves a TORN record: each sector it covers holds its new bytes or
// the zeros that were there before (the hardware assumption and J10). Anything else is damage
// that happened after the write: a DAMAGED record (a sector written and then changed), a header
// sector neither intact nor zeros, a stale record where the log should go on. And a torn record
// that a later record says was durable (its DurableThrough >= E) was damaged too, whatever its
// sectors look like. So, with mode = StorageEnvironmentOptions.JournalTailRecovery:
//
//   pos = start; E = expectedTxId
//   loop:
//     slot = what pos holds for E (ReadSlot): end of file | zeros | garbage (a header sector
//            neither intact nor zeros) | stale (intact, tx < E) | gap (intact, tx > E) |
//            torn | damaged | valid                          (intact = JH1..JH3 for this file)
//     D1. valid (R1..R9): apply it; E += 1; pos = end of the record; continue
//         (tx = E with an intact header that breaks R3..R6 or R8 throws at once: the header
//          checksum proves the writer wrote it so)
//     D2. gap: corruption — records E .. tx-1 are missing. So too when slot is zeros, the end of
//         file or torn and the first slot of file pos.File + 1 is intact with tx > E: the writer
//         leaves a file only after writing every record before tx into it, so pos.File was cut
//         after they were written, and the error names pos.File, not the intact next file
//         (under DiscardAnyDamage: as D4)
//     D3. if file pos.File + 1 exists and its first slot is intact with tx = E:
//             pos = (pos.File + 1, 0); continue      -- the writer rotated (J4); the rest of
//                                                       pos.File is unused space
//     D4. damaged, garbage or stale: corruption, unless mode = DiscardAnyDamage (then as torn)
//         torn: corruption if mode = Strict
//         the first sector of file pos.File + 1 neither zeros nor record E's intact header:
//             corruption (the writer writes nothing else there), unless mode = DiscardAnyDamage
//     D5. from = the end of slot's record if its header is intact with tx = E (its sizes are
//                vouched for by the header checksum), else pos + 4096
//         if any 4096-aligned slot from `from` to the end of pos.File, or anywhere in a journal
//            file numbered above pos.File, is intact with TransactionId > DurableThrough >= E:
//             corruption: a record written later knew record E durable
//         if mode = Strict and any byte from pos on (in pos.File or a later file) is not zero:
//             corruption: something was written past the end of the log
//     D6. end of the log: return pos as the place where writing resumes
//
// What D5 costs: it reads the rest of the last journal file and any file after it, once per
// recovery (preallocated space reads back as zeros without touching the disk on most file
// systems); the same pass tells whether the rest of the file is already all zeros (TailIsClean),
// which spares the resumed writer a second read (JournalWriter.ClearTail). What it
// assumes: nothing but this store's writer produces a header intact for this store and file —
// the header checksum is bound to the store's random id and the file number, so a forged header
// in a stored value passes by a 1 in 2^32 guess, once per crash that tore a write over it.

/// <summary>
/// The recovery scan over a journal directory; see the pseudo-code above. Not thread-safe: one
/// scan, on one thread, before the writer is created.
/// </summary>
internal sealed partial class JournalReader : IDisposable
{
    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly ulong _storeId;
    private readonly JournalTailRecovery _mode;
    private readonly JournalSealing? _sealing; // SL8: the store's journal seal, null for a store that is not sealed
    private readonly bool _sealedWithoutKey; // a sealed store's journal read without its key: payloads are not opened
    private readonly List<long> _fileNumbers;
    private byte[] _buffer = new byte[JournalRecord.Alignment];
    private byte[] _decompressed = [];
    private byte[] _opened = [];
    private IStorageFile? _file;
    private long _openFileNumber = -1;

    private JournalReader(IFileSystem fileSystem, string directory, ulong storeId, JournalTailRecovery mode, long lastFileNumber = long.MaxValue,
        JournalSealing? sealing = null, bool sealedWithoutKey = false)
    {
        if (sealing is not null && sealedWithoutKey)
        {
            throw new ArgumentException("A journal is read with its store's key or without it, not both.", nameof(sealedWithoutKey));
        }

        _sealedWithoutKey = sealedWithoutKey;
        _fileSystem = fileSystem;
        _directory = directory;
        _storeId = storeId;
        _mode = mode;
        _sealing = sealing;
        _fileNumbers = JournalFiles.List(fileSystem, directory).Where(n => n <= lastFileNumber).ToList();
    }

    /// <summary>
    /// Reads the records from <paramref name="start"/> in journal order, validating each, and calls
    /// <paramref name="apply"/> for every valid one (its buffers are valid during the call only).
    /// Returns the last valid transaction and the position right after it, where the writer
    /// resumes. Throws <see cref="CorruptionException"/> (naming the journal file, the offset of
    /// the bad record, and the rule) for damage that a crash cannot have left, for a broken record
    /// that a later record proves durable, on a gap in transaction ids, and on a record this
    /// version cannot read (D1..D6 above). Records before the bad one have been applied by then;
    /// replaying them again on the next try is harmless.
    /// </summary>
    /// <param name="fileSystem">The file system holding the journal files.</param>
    /// <param name="directory">The store's directory, where the journal files are.</param>
    /// <param name="storeId">The store's id (the header file's StoreId): every checksum is bound to it.</param>
    /// <param name="start">Where the first unsynced record starts (a multiple of 4096).</param>
    /// <param name="apply">Called with every valid record, in order.</param>
    /// <param name="expectedTransactionId">The transaction after the last one synced to the data file.</param>
    /// <param name="mode">How the end of the log is judged (D4, D5).</param>
    /// <param name="stopBefore">Asked about every valid record before it is applied: true stops the
    /// scan there (the result ends before that record, and says nothing about what follows). Null =
    /// read to the end of the log. For point-in-time restore; recovery never stops early.</param>
    /// <param name="lastFileNumber">Files numbered above it are not this log's and are never read (a journal
    /// archive holding another store's files after this one's: JA5). Recovery reads every file.</param>
    /// <param name="stopAfter">The scan ends right after applying this transaction, reading nothing past it (a
    /// restore's target: what lies after it is not its concern). Recovery reads to the end of the log.</param>
    /// <param name="sealing">The store's journal seal when its records are sealed (SL8), else null. Every
    /// record of a sealed store is sealed and no record of another store is: either mismatch is corruption.</param>
    /// <param name="sealedWithoutKey">A sealed store's journal read without its key (Inspect): a sealed record is
    /// judged on its header and trailers alone (SL8) and applied with no pages; its payload is not opened.</param>
    public static JournalRecoveryResult Recover(IFileSystem fileSystem, string directory, ulong storeId, JournalPosition start,
        long expectedTransactionId, Action<RecoveredRecord> apply, JournalTailRecovery mode = JournalTailRecovery.DiscardTornWrite,
        Func<RecoveredRecord, bool>? stopBefore = null, long lastFileNumber = long.MaxValue, long stopAfter = long.MaxValue,
        JournalSealing? sealing = null, bool sealedWithoutKey = false)
    {
        ArgumentNullException.ThrowIfNull(fileSystem);
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(apply);
        ArgumentOutOfRangeException.ThrowIfNegative(start.FileNumber);
        ArgumentOutOfRangeException.ThrowIfNegative(start.Offset);
        if (start.Offset % JournalRecord.Alignment != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(start), start, $"A journal position is a multiple of {JournalRecord.Alignment}.");
        }

        using var reader = new JournalReader(fileSystem, directory, storeId, mode, lastFileNumber, sealing, sealedWithoutKey);
        return reader.Run(start, expectedTransactionId, apply, stopBefore, stopAfter);
    }

    public void Dispose()
    {
        CloseFile();
        if (_sealing is not null)
        {
            // SL10: opened payloads are plaintext.
            _opened.AsSpan().Clear();
            _decompressed.AsSpan().Clear();
        }
    }

    private JournalRecoveryResult Run(JournalPosition start, long expectedTransactionId, Action<RecoveredRecord> apply, Func<RecoveredRecord, bool>? stopBefore,
        long stopAfter)
    {
        CheckStart(start);
        var position = start;
        var expected = expectedTransactionId;
        var count = 0;
        long lastCommitTime = 0;

        // No step limit needed: each turn moves forward by a validated record size (>= 4096,
        // inside the file) or to the next existing file, or returns.
        while (true)
        {
            var slot = ReadSlot(position, expected);
            if (slot.Kind == SlotKind.Valid)
            {
                // D1
                var end = position with { Offset = position.Offset + slot.Header.RecordSize };
                var record = new RecoveredRecord(expected, slot.State, slot.Pages!, position, end) { CommitTime = slot.Header.CommitTime };
                if (stopBefore?.Invoke(record) == true)
                {
                    // A caller's target (point-in-time restore): the log goes on, but not for it.
                    return new JournalRecoveryResult(expected - 1, position, _fileNumbers.Where(n => n >= start.FileNumber && n <= position.FileNumber).ToList(), count)
                    {
                        TailIsClean = false,
                        LastCommitTime = lastCommitTime,
                    };
                }

                apply(record);
                lastCommitTime = record.CommitTime;
                Debug.Assert(end > position, "J1: recovery moves forward on every record");
                expected++;
                count++;
                position = end;
                if (expected - 1 == stopAfter)
                {
                    return new JournalRecoveryResult(expected - 1, position, _fileNumbers.Where(n => n >= start.FileNumber && n <= position.FileNumber).ToList(), count)
                    {
                        TailIsClean = false,
                        LastCommitTime = lastCommitTime,
                    };
                }

                continue;
            }

            if (slot.Kind == SlotKind.Gap)
            {
                // D2
                throw new CorruptionException(PathOf(position.FileNumber), position.Offset,
                    $"transaction gap: record tx {slot.Header.TransactionId} sits where record tx {expected} should be " +
                    $"(records {expected}..{slot.Header.TransactionId - 1} are missing)");
            }

            var (next, nextTransaction) = ReadNextFile(position.FileNumber, expected);
            if (next == NextFile.StartsWithExpected)
            {
                // D3
                ThrowIfStrictAndWritten(position, slot, expected);
                position = new JournalPosition(position.FileNumber + 1, 0);
                continue;
            }

            ThrowIfCut(position, slot, next, nextTransaction, expected); // D2: a later record starts the next file

            // D4: when nothing was written at pos but the next file starts with something, that
            // something is the broken slot: report it there.
            var nothingHere = slot.Kind is SlotKind.Zeros or SlotKind.EndOfFile;
            var broken = (At: position, What: slot.Describe(expected));
            if (nothingHere && next is NextFile.Other or NextFile.Later)
            {
                ThrowIfNextFileDamaged(position, next, expected);
                broken = (new JournalPosition(position.FileNumber + 1, 0),
                    $"where record tx {expected} should start this file, the header sector is neither an intact header of it nor zeros");
            }

            ThrowIfNotTorn(position, slot, expected);
            var from = slot.Kind is SlotKind.Torn or SlotKind.Damaged
                ? position.Offset + slot.Header.RecordSize
                : position.Offset + JournalRecord.Alignment;
            // A next file that exists but holds nothing at its start: record E went there (J4, JA8),
            // so when a later file proves E durable, that file is the one that was cut or emptied.
            var laterBroken = nothingHere && next == NextFile.Nothing && _fileNumbers.BinarySearch(position.FileNumber + 1) >= 0
                ? (At: new JournalPosition(position.FileNumber + 1, 0),
                    What: $"journal file {position.FileNumber + 1} holds nothing where record tx {expected} should start it (a new file's first record is " +
                          "written before any later file: JA8), so it was cut short or emptied")
                : broken;
            var clean = CheckWhatFollows(position, from, expected, broken, laterBroken); // D5
            ThrowIfNextFileDamaged(position, next, expected);
            var files = _fileNumbers.Where(n => n >= start.FileNumber && n <= position.FileNumber).ToList();
            return new JournalRecoveryResult(expected - 1, position, files, count) { TailIsClean = clean, LastCommitTime = lastCommitTime }; // D6
        }
    }

    /// <summary>
    /// The CommitTime of record <paramref name="transactionId"/>, which ends at <paramref name="end"/>
    /// (records of a file follow one another from its offset 0: J1, J5), read by walking the record
    /// headers of <paramref name="end"/>'s file; 0 when the file is missing, the offset is 0, or a
    /// header on the way does not verify (informational: never an error, recovery judges damage).
    /// At most one header read per 4096 bytes before <paramref name="end"/>.
    /// </summary>
    public static long FindCommitTime(IFileSystem fileSystem, string directory, ulong storeId, JournalPosition end, long transactionId)
    {
        var path = JournalFiles.PathOf(directory, end.FileNumber);
        if (end.Offset <= 0 || !fileSystem.FileExists(path))
        {
            return 0;
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var binding = new RecordBinding(storeId, end.FileNumber);
        Span<byte> sector = stackalloc byte[JournalRecord.SectorSize];
        for (long at = 0; at < end.Offset;)
        {
            if (file.Read(at, sector) != sector.Length || !JournalRecordHeader.TryRead(sector, binding, out var header) ||
                header.StoredPayloadSize is < 0 or > JournalRecord.MaxRecordSize)
            {
                return 0;
            }

            var next = at + header.RecordSize;
            if (next == end.Offset)
            {
                return header.TransactionId == transactionId ? header.CommitTime : 0;
            }

            at = next;
        }

        return 0;
    }

    /// <summary>The start's file must hold the start offset; a missing file is fine only at
    /// offset 0 (nothing was ever written there: the writer creates it before its first record).</summary>
    private void CheckStart(JournalPosition start)
    {
        var file = OpenFile(start.FileNumber);
        if (file is null ? start.Offset != 0 : start.Offset > file.Length)
        {
            throw new CorruptionException(PathOf(start.FileNumber), start.Offset,
                file is null
                    ? "the journal file holding the recovery start position is missing"
                    : $"the recovery start position is past the end of the {file.Length}-byte journal file");
        }
    }

    private string PathOf(long fileNumber) => JournalFiles.PathOf(_directory, fileNumber);

    /// <summary>The open handle on journal file <paramref name="number"/>, or null if there is no such file.</summary>
    private IStorageFile? OpenFile(long number)
    {
        if (number == _openFileNumber)
        {
            return _file;
        }

        CloseFile();
        if (_fileNumbers.BinarySearch(number) < 0)
        {
            return null;
        }

        _file = _fileSystem.Open(PathOf(number), FileOpenMode.OpenExisting);
        _openFileNumber = number;
        return _file;
    }

    private void CloseFile()
    {
        _file?.Dispose();
        _file = null;
        _openFileNumber = -1;
    }

    /// <summary>Reads exactly <paramref name="destination"/>.Length bytes; validation has already
    /// shown they lie inside the file, so a short read means the file shrank under us.</summary>
    private static void ReadExactly(IStorageFile file, long offset, Span<byte> destination)
    {
        var read = file.Read(offset, destination);
        if (read != destination.Length)
        {
            throw new CorruptionException(file.Path, offset, $"read {read} of {destination.Length} bytes inside a {file.Length}-byte file");
        }
    }
}
