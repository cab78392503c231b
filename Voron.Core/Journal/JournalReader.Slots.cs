namespace Voron.Journal;

/// <summary>Reading and classifying one slot (D1, D2 of the pseudo-code in JournalReader.cs).</summary>
internal sealed partial class JournalReader
{
    private enum SlotKind
    {
        /// <summary>JH1 fails: the slot's first sector is not inside the file, or the file is missing.</summary>
        EndOfFile,

        /// <summary>The header sector is all zeros: nothing was written here.</summary>
        Zeros,

        /// <summary>The header sector is neither an intact header (JH2, JH3) nor zeros.</summary>
        Garbage,

        /// <summary>Intact, tx &lt; E.</summary>
        Stale,

        /// <summary>Intact, tx &gt; E.</summary>
        Gap,

        /// <summary>Intact, tx = E, R3..R6 hold, some sectors fail (R7) and each of them is all zeros.</summary>
        Torn,

        /// <summary>Intact, tx = E, R3..R6 hold, a sector fails and is not all zeros.</summary>
        Damaged,

        /// <summary>R1..R9 hold.</summary>
        Valid,
    }

    /// <summary>
    /// Reads the slot at <paramref name="position"/> and classifies it for the expected transaction
    /// <paramref name="expected"/>. An intact header with tx = E that breaks R3..R6 or R8 throws
    /// here (see the FORMAT block in JournalRecord.cs). A valid slot's state and pages alias
    /// <see cref="_buffer"/> until the next read.
    /// </summary>
    private Slot ReadSlot(JournalPosition position, long expected)
    {
        var file = OpenFile(position.FileNumber);
        if (file is null || file.Length - position.Offset < JournalRecord.SectorSize)
        {
            return new Slot(SlotKind.EndOfFile, default);
        }

        var headerSector = _buffer.AsSpan(0, JournalRecord.SectorSize);
        ReadExactly(file, position.Offset, headerSector);
        var binding = new RecordBinding(_storeId, position.FileNumber);
        if (!JournalRecordHeader.TryRead(headerSector, binding, out var header))
        {
            return new Slot(headerSector.ContainsAnyExcept((byte)0) ? SlotKind.Garbage : SlotKind.Zeros, default);
        }

        if (header.TransactionId != expected)
        {
            return new Slot(header.TransactionId < expected ? SlotKind.Stale : SlotKind.Gap, header);
        }

        JournalRecord.ValidateHeader(header, file.Path, position.Offset, file.Length);
        var size = checked((int)header.RecordSize);
        EnsureBuffer(size);
        ReadExactly(file, position.Offset + JournalRecord.SectorSize, _buffer.AsSpan(JournalRecord.SectorSize, size - JournalRecord.SectorSize));
        var sectors = JournalRecord.CheckSectors(_buffer.AsSpan(0, size), JournalRecord.SectorSeed(_storeId, position.FileNumber, expected), out var firstBad);
        if (sectors != JournalRecord.SectorState.Intact)
        {
            return new Slot(sectors == JournalRecord.SectorState.Torn ? SlotKind.Torn : SlotKind.Damaged, header, FirstBadSector: firstBad);
        }

        var body = checked((int)(JournalRecord.HeaderSize + header.StoredPayloadSize));
        JournalRecord.Unframe(_buffer.AsSpan(0, size), body);
        ReadOnlyMemory<byte> payload = _buffer.AsMemory(JournalRecord.HeaderSize, body - JournalRecord.HeaderSize);
        if (_sealedWithoutKey && (header.Flags & JournalRecordFlags.Sealed) != 0)
        {
            // SL8: its header and trailers hold; without the key that is all a reader can judge.
            return new Slot(SlotKind.Valid, header, _buffer.AsMemory(JournalRecord.StateOffset, JournalRecord.StateSize), []);
        }

        payload = OpenSealed(payload, header, position, file.Path);
        if ((header.Flags & JournalRecordFlags.Lz4Compressed) != 0)
        {
            payload = Decompress(payload, header, file.Path, position.Offset);
        }

        // EntryCount is vouched for by the header checksum but not yet by R8: never let it size an allocation alone.
        var pages = new List<RecoveredPage>(Math.Min(header.EntryCount, payload.Length / JournalRecord.EntryHeaderSize));
        JournalRecord.ReadEntries(payload, header, file.Path, position.Offset, pages);
        var state = _buffer.AsMemory(JournalRecord.StateOffset, JournalRecord.StateSize);
        return new Slot(SlotKind.Valid, header, state, pages);
    }

    /// <summary>
    /// SL8: the payload of a sealed record whose trailers verified, opened (a tag that fails is
    /// corruption: the trailers prove the bytes were written so); a plaintext record is returned as
    /// it is. A sealed record where no key was given, or a plaintext one where one was, is corruption too.
    /// </summary>
    private ReadOnlyMemory<byte> OpenSealed(ReadOnlyMemory<byte> stored, in JournalRecordHeader header, JournalPosition position, string file)
    {
        var isSealed = (header.Flags & JournalRecordFlags.Sealed) != 0;
        if (isSealed != (_sealing is not null))
        {
            throw new CorruptionException(file, position.Offset, isSealed
                ? $"SL8: record tx {header.TransactionId} is sealed, and the journal is read without the store's key"
                : $"SL8: record tx {header.TransactionId} is not sealed, in the journal of a sealed store");
        }

        if (!isSealed)
        {
            return stored;
        }

        var size = stored.Length - Sealing.SealFormat.RecordOverhead; // R6 holds: at least 0
        if (_opened.Length < size)
        {
            _opened = new byte[Math.Max(size, (int)Math.Min(_opened.Length * 2L, Array.MaxLength))];
        }

        _sealing!.Open(_buffer.AsSpan(0, JournalRecord.HeaderSize), stored.Span, _opened.AsSpan(0, size), position.FileNumber, file, position.Offset,
            header.TransactionId);
        return _opened.AsMemory(0, size);
    }

    /// <summary>R9: the stored payload of a record whose checksum matched decodes to exactly its declared size.</summary>
    private ReadOnlyMemory<byte> Decompress(ReadOnlyMemory<byte> stored, in JournalRecordHeader header, string file, long offset)
    {
        var size = checked((int)header.UncompressedPayloadSize);
        if (_decompressed.Length < size)
        {
            _decompressed = new byte[Math.Max(size, (int)Math.Min(_decompressed.Length * 2L, Array.MaxLength))];
        }

        int produced;
        try
        {
            produced = Compression.Lz4Block.Decompress(stored.Span, _decompressed.AsSpan(0, size));
        }
        catch (InvalidDataException e)
        {
            throw new CorruptionException(file, offset, $"R9: the LZ4 payload of record tx {header.TransactionId} does not decode: {e.Message}");
        }

        if (produced != size)
        {
            throw new CorruptionException(file, offset, $"R9: the LZ4 payload of record tx {header.TransactionId} decodes to {produced} bytes, the header says {size}");
        }

        return _decompressed.AsMemory(0, size);
    }

    private void EnsureBuffer(int size)
    {
        if (_buffer.Length < size)
        {
            // Grow geometrically so a run of growing records costs few copies; the header sector
            // already read stays at the front.
            var grown = new byte[Math.Max(size, (int)Math.Min((long)_buffer.Length * 2, Array.MaxLength))];
            _buffer.AsSpan(0, JournalRecord.SectorSize).CopyTo(grown);
            _buffer = grown;
        }
    }

    private readonly record struct Slot(SlotKind Kind, JournalRecordHeader Header, ReadOnlyMemory<byte> State = default,
        List<RecoveredPage>? Pages = null, int FirstBadSector = -1)
    {
        /// <summary>What sits where record <paramref name="expected"/> should be, for a corruption message.</summary>
        public string Describe(long expected) => Kind switch
        {
            SlotKind.EndOfFile => $"the journal file ends where record tx {expected} should start",
            SlotKind.Zeros => $"nothing was written where record tx {expected} should be",
            SlotKind.Garbage => $"where record tx {expected} should start, the header sector is neither an intact record header nor zeros " +
                "(bad magic or header checksum: written and since changed, or written by another store or into another file)",
            SlotKind.Stale => $"a stale record tx {Header.TransactionId} sits where record tx {expected} should be " +
                "(journal space past the end of the log is zero-filled, so no crash leaves one there)",
            SlotKind.Torn => $"record tx {expected} is torn (sector {FirstBadSector} and maybe others read as zeros: never written)",
            SlotKind.Damaged => $"record tx {expected} is damaged: sector {FirstBadSector} (byte {FirstBadSector * JournalRecord.SectorSize} of the record) " +
                "was written and no longer matches its checksum (R7: rot, a misdirected write, or a disk that does not write 512-byte sectors whole)",
            _ => $"record tx {expected} is {Kind}",
        };
    }
}
