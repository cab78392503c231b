namespace Voron.Journal;

/// <summary>Where the log ends: D3 (rotation), D4 (damage a crash cannot leave) and D5 (what
/// follows a broken slot) of the pseudo-code in JournalReader.cs.</summary>
internal sealed partial class JournalReader
{
    /// <summary>Bytes read at a time while scanning what follows the end of the log (D5).</summary>
    private const int ScanChunkSize = 1 << 20;

    private byte[]? _scanBuffer;

    /// <summary>What the first slot of the journal file after the current one holds (D3).</summary>
    private enum NextFile
    {
        /// <summary>No such file, or its first sector is zeros (or missing): nothing was written there.</summary>
        Nothing,

        /// <summary>An intact header of the expected record: the writer rotated.</summary>
        StartsWithExpected,

        /// <summary>An intact header of a later record: the records between are missing (D2 across files).</summary>
        Later,

        /// <summary>Anything else: a header sector neither intact nor zeros, or an earlier record.</summary>
        Other,
    }

    /// <summary>D3: what the first slot of journal file <paramref name="fileNumber"/> + 1 holds for record
    /// <paramref name="expected"/>, and the transaction of its intact header (0 without one).</summary>
    private (NextFile Kind, long TransactionId) ReadNextFile(long fileNumber, long expected)
    {
        var next = OpenFile(fileNumber + 1);
        if (next is null || next.Length < JournalRecord.SectorSize)
        {
            return (NextFile.Nothing, 0);
        }

        Span<byte> sector = stackalloc byte[JournalRecord.SectorSize];
        ReadExactly(next, 0, sector);
        if (JournalRecordHeader.TryRead(sector, new RecordBinding(_storeId, fileNumber + 1), out var parsed))
        {
            var kind = parsed.TransactionId == expected ? NextFile.StartsWithExpected : parsed.TransactionId > expected ? NextFile.Later : NextFile.Other;
            return (kind, parsed.TransactionId);
        }

        return (sector.ContainsAnyExcept((byte)0) ? NextFile.Other : NextFile.Nothing, 0);
    }

    /// <summary>
    /// D2 across files: nothing (or a torn record) where record <paramref name="expected"/> should
    /// be, and the next file starts with an intact header of the later record
    /// <paramref name="later"/>. The writer moves to the next file only after writing every record
    /// before it into this one (J1, J3), so the records between are missing from THIS file: it was
    /// cut (truncated, or copied in part) after they were written. The next file is intact.
    /// </summary>
    private void ThrowIfCut(JournalPosition position, in Slot slot, NextFile next, long later, long expected)
    {
        if (next == NextFile.Later && _mode != JournalTailRecovery.DiscardAnyDamage && slot.Kind is SlotKind.Zeros or SlotKind.EndOfFile or SlotKind.Torn)
        {
            throw new CorruptionException(PathOf(position.FileNumber), position.Offset,
                $"{slot.Describe(expected)}, but the next journal file '{PathOf(position.FileNumber + 1)}' starts with record tx {later}: records " +
                $"{expected}..{later - 1} are missing, so this file was cut short (truncated, or copied in part) after they were written. " +
                "Put the whole file back (from the journal archive or a copy of the store), or restore from a backup");
        }
    }

    /// <summary>
    /// D4 for the next file: the writer writes nothing into a new file before its first record,
    /// so when that file's first sector holds something other than record E's intact header or
    /// zeros, it is damage — unless the mode discards any damage.
    /// </summary>
    private void ThrowIfNextFileDamaged(JournalPosition position, NextFile next, long expected)
    {
        if (next == NextFile.Other && _mode != JournalTailRecovery.DiscardAnyDamage)
        {
            throw new CorruptionException(PathOf(position.FileNumber + 1), 0,
                $"where record tx {expected} should start this file (the previous one ends at offset {position.Offset} with nothing after it), the " +
                "header sector is neither an intact header of that record nor zeros: written and since changed. Restore from a backup, or open with " +
                "JournalTailRecovery.DiscardAnyDamage to discard this file's records");
        }
    }

    /// <summary>D4: a slot that is not a torn write is corruption, unless the mode discards any
    /// damage; a torn one is corruption under the strict mode.</summary>
    private void ThrowIfNotTorn(JournalPosition position, in Slot slot, long expected)
    {
        var damaged = slot.Kind is SlotKind.Damaged or SlotKind.Garbage or SlotKind.Stale;
        if (damaged && _mode != JournalTailRecovery.DiscardAnyDamage)
        {
            throw new CorruptionException(PathOf(position.FileNumber), position.Offset,
                $"{slot.Describe(expected)}; a crash leaves a torn record's unwritten sectors as zeros, so this is damage, not a torn write. " +
                "Restore from a backup, or open with JournalTailRecovery.DiscardAnyDamage to discard this record and every one after it");
        }

        if (slot.Kind == SlotKind.Torn && _mode == JournalTailRecovery.Strict)
        {
            throw new CorruptionException(PathOf(position.FileNumber), position.Offset,
                $"{slot.Describe(expected)}: a crash interrupted its write, so it was never acknowledged in durable mode. " +
                "JournalTailRecovery.Strict reports any damage; open with JournalTailRecovery.DiscardTornWrite to discard it");
        }
    }

    /// <summary>Under the strict mode, before following a rotation (D3): the rest of the file the
    /// writer left must be zeros.</summary>
    private void ThrowIfStrictAndWritten(JournalPosition position, in Slot slot, long expected)
    {
        if (_mode == JournalTailRecovery.Strict && Scan(position.FileNumber, position.Offset, long.MaxValue, expected) is { FirstNonZero: { } at })
        {
            throw new CorruptionException(PathOf(position.FileNumber), at,
                $"{slot.Describe(expected)} and the log goes on in the next file, but byte {at} of this file after its last record is not zero " +
                "(JournalTailRecovery.Strict reports any damage)");
        }
    }

    /// <summary>
    /// D5: throws if any 4096-aligned slot from <paramref name="from"/> to the end of the file at
    /// <paramref name="end"/>, or anywhere in a later journal file, holds an intact header of a
    /// record written when record <paramref name="expected"/> was durable — and, under the strict
    /// mode, if any byte from <paramref name="end"/> on is not zero. The exception names
    /// <paramref name="broken"/>'s place and says what is there (<paramref name="brokenBeforeLater"/>'s
    /// when what it found is in a later file). Returns whether every byte of the end's file from
    /// <paramref name="end"/> on is zero.
    /// </summary>
    private bool CheckWhatFollows(JournalPosition end, long from, long expected, (JournalPosition At, string What) broken,
        (JournalPosition At, string What) brokenBeforeLater)
    {
        var clean = true;
        var hereBroken = broken;
        foreach (var number in _fileNumbers)
        {
            if (number < end.FileNumber)
            {
                continue;
            }

            var here = number == end.FileNumber;
            broken = here ? hereBroken : brokenBeforeLater;
            var found = Scan(number, here ? end.Offset : 0, here ? from : 0, expected);
            if (found.Proof is var (offset, transactionId, durableThrough))
            {
                var where = here ? $"offset {offset}" : $"offset {offset} of '{PathOf(number)}'";
                throw new CorruptionException(PathOf(broken.At.FileNumber), broken.At.Offset,
                    $"{broken.What}, but record tx {transactionId} at {where} was written when every record through tx {durableThrough} " +
                    "was durable: record " + expected + " was damaged after it was written, and acknowledged transactions would be lost");
            }

            if (found.FirstNonZero is { } at)
            {
                clean &= !here;
                if (_mode == JournalTailRecovery.Strict)
                {
                    throw new CorruptionException(PathOf(broken.At.FileNumber), broken.At.Offset,
                        $"{broken.What}, and byte {at} of '{PathOf(number)}' past the end of the log is not zero: " +
                        "a torn or damaged write (JournalTailRecovery.Strict reports any damage; the default discards a torn write)");
                }
            }
        }

        return clean;
    }

    /// <summary>
    /// Reads journal file <paramref name="fileNumber"/> from <paramref name="scanFrom"/> to its end:
    /// the first slot at or after <paramref name="headersFrom"/> whose header is intact with
    /// TransactionId &gt; DurableThrough &gt;= <paramref name="expected"/>, and the first byte that is not zero.
    /// </summary>
    private (ProofOfDurability? Proof, long? FirstNonZero) Scan(long fileNumber, long scanFrom, long headersFrom, long expected)
    {
        var file = OpenFile(fileNumber);
        if (file is null)
        {
            return (null, null);
        }

        _scanBuffer ??= new byte[ScanChunkSize];
        var binding = new RecordBinding(_storeId, fileNumber);
        long? firstNonZero = null;
        var length = file.Length;
        for (var chunkStart = scanFrom; chunkStart < length; chunkStart += ScanChunkSize)
        {
            var chunk = _scanBuffer.AsSpan(0, (int)Math.Min(ScanChunkSize, length - chunkStart));
            ReadExactly(file, chunkStart, chunk);
            if (firstNonZero is null && chunk.IndexOfAnyExcept((byte)0) is var nonZero and >= 0)
            {
                firstNonZero = chunkStart + nonZero;
            }

            if (firstNonZero is null)
            {
                continue; // zeros hold no header
            }

            if (headersFrom >= chunkStart + chunk.Length)
            {
                continue;
            }

            var firstSlot = JournalRecord.AlignUp(Math.Max(chunkStart, headersFrom)) - chunkStart;
            for (var at = firstSlot; chunk.Length - at >= JournalRecord.HeaderSize; at += JournalRecord.Alignment)
            {
                if (JournalRecordHeader.TryRead(chunk.Slice((int)at, JournalRecord.HeaderSize), binding, out var header) &&
                    header.DurableThrough >= expected && header.TransactionId > header.DurableThrough)
                {
                    return (new ProofOfDurability(chunkStart + at, header.TransactionId, header.DurableThrough), firstNonZero);
                }
            }
        }

        return (null, firstNonZero);
    }

    /// <summary>An intact record, found past a broken one, that was written when the broken one was already durable.</summary>
    private readonly record struct ProofOfDurability(long Offset, long TransactionId, long DurableThrough);
}
