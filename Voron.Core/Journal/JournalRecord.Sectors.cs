using System.Buffers.Binary;
using System.Numerics;

namespace Voron.Journal;

/// <summary>
/// The sectors of a record (see the FORMAT block in JournalRecord.cs): spreading the body over
/// 508-byte sector data areas with a checksum trailer each, checking them, and gathering the body
/// back. Both directions work in place on the record's buffer.
/// </summary>
internal static partial class JournalRecord
{
    /// <summary>How a record's sectors read back.</summary>
    public enum SectorState
    {
        /// <summary>Every sector's trailer matches (R7).</summary>
        Intact,

        /// <summary>Some sectors fail, and each of them is all zeros: the disk had not written them.</summary>
        Torn,

        /// <summary>A sector fails and is not all zeros: it was written and has changed since.</summary>
        Damaged,
    }

    /// <summary>The running CRC every sector trailer of one record starts from: the binding and the transaction id.</summary>
    public static uint SectorSeed(ulong storeId, long fileNumber, long transactionId) =>
        BitOperations.Crc32C(Bind(storeId, fileNumber), (ulong)transactionId);

    /// <summary>The trailer of sector <paramref name="index"/>, from the first 508 bytes of <paramref name="sector"/>.</summary>
    public static uint SectorChecksum(uint seed, int index, ReadOnlySpan<byte> sector) =>
        ~Voron.Crc32C.Append(BitOperations.Crc32C(seed, (uint)index), sector[..SectorDataSize]);

    /// <summary>
    /// Spreads the body — the first <paramref name="bodyLength"/> bytes of <paramref name="record"/>,
    /// contiguous — over the record's sectors, zeroes every data byte after it, and stamps each
    /// sector's trailer. <paramref name="record"/> is the whole record (a multiple of 512 bytes,
    /// with room for the body's sectors).
    /// </summary>
    public static void Frame(Span<byte> record, int bodyLength, uint seed)
    {
        var sectors = record.Length / SectorSize;
        var bodySectors = (bodyLength + SectorDataSize - 1) / SectorDataSize;
        if (bodySectors > sectors || record.Length % SectorSize != 0)
        {
            throw new ArgumentException($"A {record.Length}-byte record cannot hold a {bodyLength}-byte body.", nameof(record));
        }

        // From the last chunk back: chunk k moves up by 4k bytes, over bytes already moved or its own.
        for (var k = sectors - 1; k >= 0; k--)
        {
            var length = Math.Clamp(bodyLength - (k * SectorDataSize), 0, SectorDataSize);
            var sector = record.Slice(k * SectorSize, SectorSize);
            if (length > 0 && k > 0)
            {
                record.Slice(k * SectorDataSize, length).CopyTo(sector);
            }

            sector[length..SectorDataSize].Clear();
            BinaryPrimitives.WriteUInt32LittleEndian(sector[SectorDataSize..], SectorChecksum(seed, k, sector));
        }
    }

    /// <summary>
    /// Checks every sector of <paramref name="record"/>; <paramref name="firstBad"/> is the first
    /// sector that fails (the first damaged one, when one is), or -1.
    /// </summary>
    public static SectorState CheckSectors(ReadOnlySpan<byte> record, uint seed, out int firstBad)
    {
        firstBad = -1;
        var state = SectorState.Intact;
        for (var k = 0; k < record.Length / SectorSize; k++)
        {
            var sector = record.Slice(k * SectorSize, SectorSize);
            if (BinaryPrimitives.ReadUInt32LittleEndian(sector[SectorDataSize..]) == SectorChecksum(seed, k, sector))
            {
                continue;
            }

            if (sector.ContainsAnyExcept((byte)0))
            {
                firstBad = k;
                return SectorState.Damaged;
            }

            if (state == SectorState.Intact)
            {
                firstBad = k;
                state = SectorState.Torn;
            }
        }

        return state;
    }

    /// <summary>Gathers the body of an intact record back to the start of <paramref name="record"/> (the inverse of <see cref="Frame"/>).</summary>
    public static void Unframe(Span<byte> record, int bodyLength)
    {
        for (var k = 1; k * SectorDataSize < bodyLength; k++)
        {
            var length = Math.Min(SectorDataSize, bodyLength - (k * SectorDataSize));
            record.Slice(k * SectorSize, length).CopyTo(record[(k * SectorDataSize)..]);
        }
    }
}
