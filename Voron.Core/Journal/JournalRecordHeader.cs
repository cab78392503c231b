using System.Buffers.Binary;

namespace Voron.Journal;

/// <summary>
/// The fields of an intact record header (JH1..JH3 in JournalRecord.cs), as read from disk. An
/// intact header was written by this store's writer into this file, but its fields still have to
/// pass R2..R6 before they are trusted; <see cref="JournalRecord.ValidateHeader"/> checks them.
/// </summary>
internal readonly record struct JournalRecordHeader(
    ushort FormatVersion,
    JournalRecordFlags Flags,
    int EntryCount,
    long TransactionId,
    long StoredPayloadSize,
    long UncompressedPayloadSize,
    long DurableThrough,
    bool ReservedIsZero)
{
    /// <summary>When the record was encoded (UTC Unix milliseconds; 0 = unknown). R5: not negative.</summary>
    public long CommitTime { get; init; }

    /// <summary>The record's size on disk, header and padding included. Valid after R6 held.</summary>
    public long RecordSize => JournalRecord.RecordSize(StoredPayloadSize);

    /// <summary>Reads the header in <paramref name="slot"/> (at least 128 bytes) if it is intact for
    /// <paramref name="binding"/> (JH2: magic, JH3: header checksum); returns false for anything else,
    /// which is not a record of this store and file.</summary>
    public static bool TryRead(ReadOnlySpan<byte> slot, in RecordBinding binding, out JournalRecordHeader header)
    {
        header = default;
        if (slot.Length < JournalRecord.HeaderSize ||
            BinaryPrimitives.ReadUInt64LittleEndian(slot[JournalRecord.MagicOffset..]) != JournalRecord.Magic ||
            BinaryPrimitives.ReadUInt32LittleEndian(slot[JournalRecord.HeaderChecksumOffset..]) !=
                JournalRecord.ComputeHeaderChecksum(slot, binding.StoreId, binding.FileNumber))
        {
            return false;
        }

        header = new JournalRecordHeader(
            BinaryPrimitives.ReadUInt16LittleEndian(slot[JournalRecord.FormatVersionOffset..]),
            (JournalRecordFlags)BinaryPrimitives.ReadUInt16LittleEndian(slot[JournalRecord.FlagsOffset..]),
            BinaryPrimitives.ReadInt32LittleEndian(slot[JournalRecord.EntryCountOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[JournalRecord.TransactionIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[JournalRecord.StoredPayloadSizeOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[JournalRecord.UncompressedPayloadSizeOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(slot[JournalRecord.DurableThroughOffset..]),
            !slot.Slice(JournalRecord.Reserved1Offset, JournalRecord.Reserved1Size).ContainsAnyExcept((byte)0))
        {
            CommitTime = BinaryPrimitives.ReadInt64LittleEndian(slot[JournalRecord.CommitTimeOffset..]),
        };
        return true;
    }
}
