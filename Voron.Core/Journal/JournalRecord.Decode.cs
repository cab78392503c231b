using System.Buffers.Binary;

namespace Voron.Journal;

/// <summary>
/// Validating a record read from disk (reader side); see the FORMAT block in JournalRecord.cs.
/// Every rule broken here is a <see cref="CorruptionException"/> (a version above this build's,
/// R3, a <see cref="FormatVersionException"/>): these checks run only on an
/// intact header carrying the expected transaction id (bound to this store and file), which a
/// torn write cannot produce, and on a payload whose every sector verified.
/// </summary>
internal static partial class JournalRecord
{
    /// <summary>Checks R3..R6 of the intact header of record <paramref name="header"/> at
    /// <paramref name="offset"/> of <paramref name="file"/>, whose length is <paramref name="fileLength"/>.</summary>
    public static void ValidateHeader(in JournalRecordHeader header, string file, long offset, long fileLength)
    {
        var tx = header.TransactionId;
        if (header.FormatVersion > FormatVersion)
        {
            throw new FormatVersionException(file, header.FormatVersion, FormatVersion,
                $"R3: record tx {tx} at offset {offset} was written by a newer Voron build; open the store with that build or a later one.");
        }

        if (header.FormatVersion is not (FormatVersion or FormatVersion2))
        {
            throw new CorruptionException(file, offset,
                $"R3: unsupported format version {header.FormatVersion} in record tx {tx} (this build reads versions {FormatVersion2} and {FormatVersion})");
        }

        if ((header.Flags & ~(JournalRecordFlags.Lz4Compressed | JournalRecordFlags.Lazy | JournalRecordFlags.Sealed)) != 0)
        {
            throw new CorruptionException(file, offset, $"R4: unsupported flags 0x{(ushort)header.Flags:X4} in record tx {tx}");
        }

        if (!header.ReservedIsZero || header.CommitTime < 0)
        {
            throw new CorruptionException(file, offset, $"R5: reserved header bytes are not zero, or the commit time is negative, in record tx {tx}");
        }

        var compressed = (header.Flags & JournalRecordFlags.Lz4Compressed) != 0;
        var payload = header.StoredPayloadSize - ((header.Flags & JournalRecordFlags.Sealed) != 0 ? Sealing.SealFormat.RecordOverhead : 0);
        if (header.EntryCount < 0 || payload < 0 || header.StoredPayloadSize > MaxStoredPayloadSize ||
            (!compressed && header.UncompressedPayloadSize != payload) ||
            (compressed && (header.UncompressedPayloadSize < 0 || header.UncompressedPayloadSize > MaxRecordSize ||
                header.UncompressedPayloadSize > MaxDecompressedSize(payload))))
        {
            throw new CorruptionException(file, offset,
                $"R6: record tx {tx} declares {header.EntryCount} entries, a stored payload of {header.StoredPayloadSize} bytes " +
                $"and an uncompressed payload of {header.UncompressedPayloadSize} bytes");
        }

        if (header.DurableThrough < 0 || header.DurableThrough >= tx)
        {
            throw new CorruptionException(file, offset, $"R6: record tx {tx} says it was written when tx {header.DurableThrough} was durable");
        }

        if (header.RecordSize > fileLength - offset)
        {
            throw new CorruptionException(file, offset,
                $"R6: record tx {tx} of {header.RecordSize} bytes extends past the end of the file ({fileLength} bytes)");
        }
    }

    /// <summary>
    /// Splits the stored payload of a record whose checksum matched into its entries (R8),
    /// appending them to <paramref name="entries"/>; the entries' bytes alias <paramref name="payload"/>.
    /// </summary>
    public static void ReadEntries(ReadOnlyMemory<byte> payload, in JournalRecordHeader header, string file, long offset, List<RecoveredPage> entries)
    {
        var tx = header.TransactionId;
        var span = payload.Span;
        var at = 0;
        for (var i = 0; i < header.EntryCount; i++)
        {
            if (span.Length - at < EntryHeaderSize)
            {
                throw new CorruptionException(file, offset,
                    $"R8: entry {i} of record tx {tx} starts at payload byte {at}, but the {span.Length}-byte payload has no room for its header");
            }

            var entry = span.Slice(at, EntryHeaderSize);
            var pageNumber = BinaryPrimitives.ReadInt64LittleEndian(entry[EntryPageNumberOffset..]);
            var pageCount = BinaryPrimitives.ReadInt32LittleEndian(entry[EntryPageCountOffset..]);
            var storedLength = BinaryPrimitives.ReadInt32LittleEndian(entry[EntryStoredLengthOffset..]);
            var encoding = (JournalPageEncoding)entry[EntryEncodingOffset];
            var where = $"entry {i} (page {pageNumber}) of record tx {tx}";
            if (encoding is not (JournalPageEncoding.FullImage or JournalPageEncoding.DiffAgainstPrevious or JournalPageEncoding.DiffAgainstZeros) &&
                !(encoding == JournalPageEncoding.InDataFile && header.FormatVersion >= FormatVersion))
            {
                throw new CorruptionException(file, offset, $"R8: unsupported encoding {(byte)encoding} in record tx {tx}, {where}");
            }

            if (pageNumber <= 0 || pageCount <= 0 || pageCount > MaxEntryPageCount || pageNumber > long.MaxValue - pageCount)
            {
                throw new CorruptionException(file, offset, $"R8: {where} has page number {pageNumber} and page count {pageCount}");
            }

            if (entry.Slice(EntryReservedOffset, EntryReservedSize).ContainsAnyExcept((byte)0))
            {
                throw new CorruptionException(file, offset, $"R8: {where} has non-zero reserved bytes");
            }

            at += EntryHeaderSize;
            var fullLength = (long)pageCount * Constants.PageSize;
            var lengthFits = encoding switch
            {
                JournalPageEncoding.FullImage => storedLength == fullLength,
                JournalPageEncoding.InDataFile => storedLength == InDataFileLength,
                _ => storedLength >= 0 && storedLength <= fullLength,
            };
            if (!lengthFits || storedLength > span.Length - at)
            {
                throw new CorruptionException(file, offset,
                    $"R8: {where} stores {storedLength} bytes in encoding {(byte)encoding} for {pageCount} pages, with {span.Length - at} payload bytes left");
            }

            entries.Add(new RecoveredPage(pageNumber, pageCount, encoding, payload.Slice(at, storedLength)));
            at += storedLength;
        }

        if (at != span.Length)
        {
            throw new CorruptionException(file, offset,
                $"R8: the {header.EntryCount} entries of record tx {tx} end at payload byte {at}, but the payload has {span.Length} bytes");
        }
    }
}
