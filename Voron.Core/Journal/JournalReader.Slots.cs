namespace Voron.Journal;

/// <summary>Reading and classifying one slot (D1, D2 of the pseudo-code in JournalReader.cs).</summary>
internal sealed partial class JournalReader
{
    private enum SlotKind
    {
        /// <summary>H1 fails: the slot is at or past the end of the file, or the file is missing.</summary>
        EndOfFile,

        /// <summary>H2 or H3 fails: zeros, garbage, or a torn header.</summary>
        NotIntact,

        /// <summary>Intact, tx &lt; E: a stale record of a recycled file or a rewritten torn try.</summary>
        Stale,

        /// <summary>Intact, tx &gt; E.</summary>
        Gap,

        /// <summary>Intact, tx = E, R3..R6 hold, the payload checksum (R7) fails.</summary>
        Broken,

        /// <summary>R1..R8 hold.</summary>
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
        if (file is null || file.Length - position.Offset < JournalRecord.HeaderSize)
        {
            return new Slot(SlotKind.EndOfFile, default);
        }

        var headerBytes = _buffer.AsSpan(0, JournalRecord.HeaderSize);
        ReadExactly(file, position.Offset, headerBytes);
        if (!JournalRecordHeader.TryRead(headerBytes, out var header))
        {
            return new Slot(SlotKind.NotIntact, default);
        }

        if (header.TransactionId != expected)
        {
            return new Slot(header.TransactionId < expected ? SlotKind.Stale : SlotKind.Gap, header);
        }

        JournalRecord.ValidateHeader(header, file.Path, position.Offset, file.Length);
        var total = checked((int)(JournalRecord.HeaderSize + header.StoredPayloadSize));
        EnsureBuffer(total);
        ReadExactly(file, position.Offset + JournalRecord.HeaderSize, _buffer.AsSpan(JournalRecord.HeaderSize, total - JournalRecord.HeaderSize));
        ReadOnlyMemory<byte> payload = _buffer.AsMemory(JournalRecord.HeaderSize, total - JournalRecord.HeaderSize);
        if (JournalRecord.Crc32C(payload.Span) != header.PayloadChecksum)
        {
            return new Slot(SlotKind.Broken, header);
        }

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

    /// <summary>R9: the stored payload of a record whose checksum matched decodes to exactly its declared size.</summary>
    private ReadOnlyMemory<byte> Decompress(ReadOnlyMemory<byte> stored, in JournalRecordHeader header, string file, long offset)
    {
        var size = checked((int)header.UncompressedPayloadSize);
        if (_decompressed.Length < size)
        {
            _decompressed = new byte[Math.Max(size, _decompressed.Length * 2)];
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
            // Grow geometrically so a run of growing records costs few copies; the header bytes
            // already read stay at the front.
            var grown = new byte[Math.Max(size, (int)Math.Min((long)_buffer.Length * 2, Array.MaxLength))];
            _buffer.AsSpan(0, JournalRecord.HeaderSize).CopyTo(grown);
            _buffer = grown;
        }
    }

    private readonly record struct Slot(SlotKind Kind, JournalRecordHeader Header, ReadOnlyMemory<byte> State = default, List<RecoveredPage>? Pages = null)
    {
        /// <summary>What sits where record <paramref name="expected"/> should be, for a corruption message.</summary>
        public string Describe(long expected) => Kind switch
        {
            SlotKind.EndOfFile => $"the journal file ends where record tx {expected} should start",
            SlotKind.NotIntact => $"where record tx {expected} should be there is no intact record header (bad magic or header checksum)",
            SlotKind.Stale => $"where record tx {expected} should be there is a stale record tx {Header.TransactionId}",
            SlotKind.Broken => $"record tx {expected} fails its payload checksum (R7)",
            _ => $"record tx {expected} is {Kind}",
        };
    }
}
