using System.Buffers.Binary;

namespace Voron.Journal;

/// <summary>Building a record (writer side); see the FORMAT block in JournalRecord.cs.</summary>
internal static partial class JournalRecord
{
    /// <summary>The stored payload size of a version-1 record holding <paramref name="pages"/> as full images.</summary>
    public static long MeasurePayload(IReadOnlyList<JournalPage> pages)
    {
        long size = 0;
        for (var i = 0; i < pages.Count; i++)
        {
            size += EntryHeaderSize + pages[i].Image.Length;
        }

        return size;
    }

    /// <summary>
    /// Writes the whole record (header, entries, zero padding) into <paramref name="record"/>,
    /// which must be exactly <c>RecordSize(MeasurePayload(pages))</c> bytes. The pages must already
    /// have passed the writer's argument checks (R8 holds for what it writes).
    /// </summary>
    public static void Encode(Span<byte> record, long transactionId, ReadOnlySpan<byte> state, IReadOnlyList<JournalPage> pages)
    {
        var payload = record[HeaderSize..];
        var at = 0;
        for (var i = 0; i < pages.Count; i++)
        {
            var page = pages[i];
            var entry = payload.Slice(at, EntryHeaderSize);
            BinaryPrimitives.WriteInt64LittleEndian(entry[EntryPageNumberOffset..], page.PageNumber);
            BinaryPrimitives.WriteInt32LittleEndian(entry[EntryPageCountOffset..], page.PageCount);
            BinaryPrimitives.WriteInt32LittleEndian(entry[EntryStoredLengthOffset..], page.Image.Length);
            entry[EntryEncodingOffset] = (byte)JournalPageEncoding.FullImage;
            entry.Slice(EntryReservedOffset, EntryReservedSize).Clear();
            at += EntryHeaderSize;
            page.Image.Span.CopyTo(payload[at..]);
            at += page.Image.Length;
        }

        // The buffer is reused: stale bytes of a longer earlier record must not reach the padding.
        payload[at..].Clear();
        var storedPayload = payload[..at];

        var header = record[..HeaderSize];
        BinaryPrimitives.WriteUInt64LittleEndian(header[MagicOffset..], Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(header[FormatVersionOffset..], FormatVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(header[FlagsOffset..], (ushort)JournalRecordFlags.None);
        BinaryPrimitives.WriteInt32LittleEndian(header[EntryCountOffset..], pages.Count);
        BinaryPrimitives.WriteInt64LittleEndian(header[TransactionIdOffset..], transactionId);
        BinaryPrimitives.WriteInt64LittleEndian(header[StoredPayloadSizeOffset..], at);
        BinaryPrimitives.WriteInt64LittleEndian(header[UncompressedPayloadSizeOffset..], at);
        BinaryPrimitives.WriteUInt32LittleEndian(header[PayloadChecksumOffset..], Crc32C(storedPayload));
        state.CopyTo(header[StateOffset..]);
        header.Slice(ReservedOffset, ReservedSize).Clear();
        BinaryPrimitives.WriteUInt32LittleEndian(header[HeaderChecksumOffset..], ComputeHeaderChecksum(header));
    }
}
