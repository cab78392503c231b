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
    /// Writes the entries of <paramref name="pages"/> into <paramref name="payload"/> (at least
    /// <c>MeasurePayload(pages)</c> bytes) and returns their length. The pages must already have
    /// passed the writer's argument checks (R8 holds for what it writes).
    /// </summary>
    public static int EncodeEntries(Span<byte> payload, IReadOnlyList<JournalPage> pages)
    {
        var at = 0;
        for (var i = 0; i < pages.Count; i++)
        {
            var page = pages[i];
            var entry = payload.Slice(at, EntryHeaderSize);
            BinaryPrimitives.WriteInt64LittleEndian(entry[EntryPageNumberOffset..], page.PageNumber);
            BinaryPrimitives.WriteInt32LittleEndian(entry[EntryPageCountOffset..], page.PageCount);
            BinaryPrimitives.WriteInt32LittleEndian(entry[EntryStoredLengthOffset..], page.Image.Length);
            entry[EntryEncodingOffset] = (byte)page.Encoding;
            entry.Slice(EntryReservedOffset, EntryReservedSize).Clear();
            at += EntryHeaderSize;
            page.Image.Span.CopyTo(payload[at..]);
            at += page.Image.Length;
        }

        return at;
    }

    /// <summary>
    /// Completes a record whose stored payload (<paramref name="storedSize"/> bytes) is already in
    /// place after the header: the header with its checksum, then the sectors (Frame: zero padding
    /// and a trailer each). <paramref name="record"/> must be exactly <c>RecordSize(storedSize)</c>
    /// bytes; the checksums are bound to <paramref name="binding"/> (store id and journal file number).
    /// With the Sealed flag, the payload (<c>storedSize - 28</c> bytes) is at
    /// <see cref="JournalSealing.PayloadOffset"/> and <paramref name="sealing"/> seals it once the
    /// header it authenticates is written, before the checksums that cover the sealed bytes.
    /// </summary>
    public static void EncodeHeader(Span<byte> record, in RecordBinding binding, long transactionId, ReadOnlySpan<byte> state, int entryCount,
        int storedSize, int uncompressedSize, JournalRecordFlags flags, long durableThrough, long commitTime = 0, JournalSealing? sealing = null)
    {
        if (((flags & JournalRecordFlags.Sealed) != 0) != (sealing is not null))
        {
            throw new ArgumentException("A record is sealed exactly when a sealing is given.", nameof(sealing));
        }

        var header = record[..HeaderSize];
        BinaryPrimitives.WriteUInt64LittleEndian(header[MagicOffset..], Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(header[FormatVersionOffset..], FormatVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(header[FlagsOffset..], (ushort)flags);
        BinaryPrimitives.WriteInt32LittleEndian(header[EntryCountOffset..], entryCount);
        BinaryPrimitives.WriteInt64LittleEndian(header[TransactionIdOffset..], transactionId);
        BinaryPrimitives.WriteInt64LittleEndian(header[StoredPayloadSizeOffset..], storedSize);
        BinaryPrimitives.WriteInt64LittleEndian(header[UncompressedPayloadSizeOffset..], uncompressedSize);
        header.Slice(Reserved1Offset, Reserved1Size).Clear();
        state.CopyTo(header[StateOffset..]);
        BinaryPrimitives.WriteInt64LittleEndian(header[DurableThroughOffset..], durableThrough);
        BinaryPrimitives.WriteInt64LittleEndian(header[CommitTimeOffset..], commitTime);
        sealing?.Seal(record, storedSize - Sealing.SealFormat.RecordOverhead, binding.FileNumber);
        BinaryPrimitives.WriteUInt32LittleEndian(header[HeaderChecksumOffset..], ComputeHeaderChecksum(header, binding.StoreId, binding.FileNumber));
        Frame(record, HeaderSize + storedSize, SectorSeed(binding.StoreId, binding.FileNumber, transactionId));
    }

    /// <summary>An uncompressed record of <paramref name="pages"/>, exactly <c>RecordSize(MeasurePayload(pages))</c> bytes.</summary>
    public static void Encode(Span<byte> record, in RecordBinding binding, long transactionId, ReadOnlySpan<byte> state, IReadOnlyList<JournalPage> pages,
        long durableThrough, long commitTime = 0)
    {
        var size = EncodeEntries(record[HeaderSize..], pages);
        EncodeHeader(record, binding, transactionId, state, pages.Count, size, size, JournalRecordFlags.None, durableThrough, commitTime);
    }
}
