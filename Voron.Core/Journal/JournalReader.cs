using System.Diagnostics;
using Voron.Platform;

namespace Voron.Journal;

// Recovery: replays the journal from the position the data file was last synced to, and decides
// where the log ends. The record format and its validity rules (H1..H3, R1..R8) are in
// JournalRecord.cs; the writer's invariants (J1..J8) that make the decision sound are in
// JournalWriter.cs.
//
// Torn tail or corruption? A crash can interrupt only the last write (J3: a record is written
// only after every earlier record is durable), and it leaves a torn tail: a slot whose header is
// old, new or garbage and whose payload mixes old and new sectors. Anything valid after it would
// be a record that was written after the torn one was durable — a contradiction, unless the bytes
// of the torn one were damaged after the fact. So:
//
//   pos = start; E = expectedTxId
//   loop:
//     slot = the record header at pos (H1..H3), its transaction id tx
//     D1  if slot is a valid record for E (R1..R8):
//             apply it; E += 1; pos = end of the record; continue
//         (tx = E with an intact header that breaks R3..R6 or R8 throws at once: the header
//          checksum proves the writer wrote it so; only R7, the payload checksum, can be torn)
//     D2  if slot is intact and tx > E:
//             corruption: a gap, records E .. tx-1 are missing
//     D3  if file pos.File + 1 exists and its first slot is intact with tx = E:
//             pos = (pos.File + 1, 0); continue     -- the writer rotated (J4); the rest of
//                                                      pos.File is unused space or a torn try
//     D4  from = the end of slot's record if slot is intact with tx = E (its sizes are vouched
//                for by the header checksum), else pos + 4096
//         if any 4096-aligned slot from `from` to the end of pos.File, or anywhere in a journal
//            file numbered above pos.File, is intact with tx >= E and not Lazy:
//             corruption: an acknowledged record follows a broken one (J3)
//         (a Lazy record was not flushed on its own, so the OS may have persisted it before an
//          earlier one: it proves nothing, and a broken record followed only by Lazy ones is a
//          torn tail — the lazy mode's documented loss of its last moments)
//     D5  end of the log: slot is a torn tail, trailing space, a stale record of a recycled file
//         (tx < E, J6) or the end of the file; return pos as the place where writing resumes
//
// Slots with intact headers and tx < E are stale everywhere: a recycled file's old records, or a
// torn try that the writer rewrote (J5); they never stop the D4 scan from looking further.
// What D4 costs: it reads the rest of the last journal file and any file after it, once per
// recovery (preallocated space reads back as zeros without touching the disk on most file
// systems). What it assumes: page images do not contain, at a 4096-aligned file offset, a
// record header with an intact checksum and a transaction id >= E; if one did, recovery would
// report corruption, never skip data.

/// <summary>
/// The recovery scan over a journal directory; see the pseudo-code above. Not thread-safe: one
/// scan, on one thread, before the writer is created.
/// </summary>
internal sealed partial class JournalReader : IDisposable
{
    private readonly IFileSystem _fileSystem;
    private readonly string _directory;
    private readonly List<long> _fileNumbers;
    private byte[] _buffer = new byte[JournalRecord.Alignment];
    private byte[] _decompressed = [];
    private IStorageFile? _file;
    private long _openFileNumber = -1;

    private JournalReader(IFileSystem fileSystem, string directory)
    {
        _fileSystem = fileSystem;
        _directory = directory;
        _fileNumbers = JournalFiles.List(fileSystem, directory);
    }

    /// <summary>
    /// Reads the records from <paramref name="start"/> in journal order, validating each, and calls
    /// <paramref name="apply"/> for every valid one (its buffers are valid during the call only).
    /// Returns the last valid transaction and the position right after it, where the writer
    /// resumes. Throws <see cref="CorruptionException"/> (naming the journal file, the offset of
    /// the bad record, and the rule) when a record is broken but acknowledged records follow it, on
    /// a gap in transaction ids, and on a record this version cannot read. Records before the bad
    /// one have been applied by then; replaying them again on the next try is harmless.
    /// </summary>
    /// <param name="start">Where the first unsynced record starts (a multiple of 4096).</param>
    /// <param name="expectedTransactionId">The transaction after the last one synced to the data file.</param>
    public static JournalRecoveryResult Recover(
        IFileSystem fileSystem, string directory, JournalPosition start, long expectedTransactionId, Action<RecoveredRecord> apply)
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

        using var reader = new JournalReader(fileSystem, directory);
        return reader.Run(start, expectedTransactionId, apply);
    }

    public void Dispose() => CloseFile();

    private JournalRecoveryResult Run(JournalPosition start, long expectedTransactionId, Action<RecoveredRecord> apply)
    {
        CheckStart(start);
        var position = start;
        var expected = expectedTransactionId;
        var count = 0;

        // No step limit needed: each turn moves forward by a validated record size (>= 4096,
        // inside the file) or to the next existing file, or returns.
        while (true)
        {
            var slot = ReadSlot(position, expected);
            if (slot.Kind == SlotKind.Valid)
            {
                // D1
                var end = position with { Offset = position.Offset + slot.Header.RecordSize };
                apply(new RecoveredRecord(expected, slot.State, slot.Pages!, position, end));
                Debug.Assert(end > position, "J1: recovery moves forward on every record");
                expected++;
                count++;
                position = end;
                continue;
            }

            if (slot.Kind == SlotKind.Gap)
            {
                // D2
                throw new CorruptionException(PathOf(position.FileNumber), position.Offset,
                    $"transaction gap: record tx {slot.Header.TransactionId} sits where record tx {expected} should be " +
                    $"(records {expected}..{slot.Header.TransactionId - 1} are missing)");
            }

            if (NextFileStartsWith(position.FileNumber, expected))
            {
                // D3
                position = new JournalPosition(position.FileNumber + 1, 0);
                continue;
            }

            // D4, then D5.
            var from = slot.Kind == SlotKind.Broken
                ? position.Offset + slot.Header.RecordSize
                : position.Offset + JournalRecord.Alignment;
            ThrowIfAcknowledgedRecordFollows(position, from, expected, slot.Describe(expected));
            var files = _fileNumbers.Where(n => n >= start.FileNumber && n <= position.FileNumber).ToList();
            return new JournalRecoveryResult(expected - 1, position, files, count);
        }
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
