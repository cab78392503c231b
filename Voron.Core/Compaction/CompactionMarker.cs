using System.Buffers.Binary;
using Voron.Platform;

namespace Voron.Compaction;

// FORMAT: compaction marker, version 1 — <store>/compaction/ready, 64 bytes.
//
// Compaction (StorageEnvironment.Compaction.cs) writes a dense copy of the store into
// <store>/compaction/ and then this marker: its presence, valid and durable, is the commit point
// after which the copy replaces the store (CompactionSwap.cs rolls the swap forward, on open if
// need be). It names the store the copy was made from and the copy itself, so that a copy is
// never swapped over a store it was not made from, or one that changed since.
//
//   OFFSET SIZE NAME                MEANING
//   0      8    Magic               the ASCII bytes "VORONCMP"
//   8      4    FormatVersion       1
//   12     4    Checksum            CRC32C of all 64 bytes with this field read as zero
//   16     8    SourceStoreId       the store id (Header/HeaderFile.cs) of the compacted store
//   24     8    SourceTransaction   its last transaction, which its header names as synced
//                                   (LastSyncedTxId) after the clean close that precedes the swap
//   32     8    CopyStoreId         the store id of the copy in <store>/compaction/
//   40     24   Reserved            zero
//
// A marker is valid iff
//   CP6. the file is 64 bytes long and the magic matches;
//   CP7. the checksum matches;
//   CP8. FormatVersion is 1; a higher one was written by a newer build (FormatVersionException:
//        finish the compaction with that build), a lower one by none (CorruptionException);
//   CP9. both store ids are non-zero and differ, SourceTransaction >= 0, the reserved bytes are zero.
// A file failing CP6 or CP7 is a marker whose write a crash tore: the commit point was not
// reached, and the copy is discarded. One passing them and failing CP9, or CP8 with a version
// below 1, was written so: CorruptionException. Whether a valid marker matches the store it lies in is rule CP3
// (CompactionSwap.cs). Written once, synced, then its directory synced; never rewritten.
// Compatibility: a new field takes reserved bytes and bumps the version; readers refuse versions
// they do not know.

/// <summary>The decoded marker; see the FORMAT block above.</summary>
internal readonly record struct CompactionMarker(ulong SourceStoreId, long SourceTransaction, ulong CopyStoreId)
{
    public const int Size = 64;
    public const ulong Magic = 0x504D434E4F524F56; // the ASCII bytes "VORONCMP" read little-endian
    public const int FormatVersion = 1;
    public const int MagicOffset = 0;
    public const int FormatVersionOffset = 8;
    public const int ChecksumOffset = 12;
    public const int SourceStoreIdOffset = 16;
    public const int SourceTransactionOffset = 24;
    public const int CopyStoreIdOffset = 32;
    public const int ReservedOffset = 40;

    public byte[] Encode()
    {
        var bytes = new byte[Size];
        BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(MagicOffset), Magic);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(FormatVersionOffset), FormatVersion);
        BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(SourceStoreIdOffset), SourceStoreId);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(SourceTransactionOffset), SourceTransaction);
        BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(CopyStoreIdOffset), CopyStoreId);
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ChecksumOffset), Crc32C.Compute(bytes));
        return bytes;
    }

    /// <summary>Writes the marker at <paramref name="path"/> and makes it durable (file and directory): the commit point.</summary>
    public void Write(IFileSystem fileSystem, string path)
    {
        using (var file = fileSystem.Open(path, FileOpenMode.CreateNew))
        {
            file.Write(0, Encode());
            file.FlushData();
        }

        fileSystem.SyncDirectory(Path.GetDirectoryName(path)!);
    }

    /// <summary>
    /// Reads the marker at <paramref name="path"/>: null when there is none or it is torn (CP6,
    /// CP7); a <see cref="CorruptionException"/> when it breaks CP8 or CP9.
    /// </summary>
    public static CompactionMarker? Read(IFileSystem fileSystem, string path)
    {
        if (!fileSystem.FileExists(path))
        {
            return null;
        }

        var bytes = new byte[Size];
        using (var file = fileSystem.Open(path, FileOpenMode.OpenExisting))
        {
            if (file.Length != Size || file.Read(0, bytes) != Size)
            {
                return null; // CP6: torn
            }
        }

        return Decode(bytes, path);
    }

    /// <summary>Decodes 64 bytes; null when CP6 or CP7 fails.</summary>
    public static CompactionMarker? Decode(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length != Size || BinaryPrimitives.ReadUInt64LittleEndian(bytes[MagicOffset..]) != Magic)
        {
            return null; // CP6
        }

        var copy = bytes.ToArray();
        var stored = BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(ChecksumOffset));
        copy.AsSpan(ChecksumOffset, 4).Clear();
        if (stored != Crc32C.Compute(copy))
        {
            return null; // CP7
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(bytes[FormatVersionOffset..]);
        if (version > FormatVersion)
        {
            throw new FormatVersionException(path, version, FormatVersion,
                "A newer Voron build prepared this compaction; open the store with that build once to finish it.");
        }

        if (version != FormatVersion)
        {
            throw new CorruptionException(path, FormatVersionOffset, $"CP8: compaction marker format version {version}, this build knows {FormatVersion}");
        }

        var marker = new CompactionMarker(
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[SourceStoreIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[SourceTransactionOffset..]),
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[CopyStoreIdOffset..]));
        if (marker.SourceStoreId == 0 || marker.CopyStoreId == 0 || marker.SourceStoreId == marker.CopyStoreId || marker.SourceTransaction < 0 ||
            bytes[ReservedOffset..].IndexOfAnyExcept((byte)0) >= 0)
        {
            throw new CorruptionException(path, 0, $"CP9: the compaction marker names source store {marker.SourceStoreId:X16} at transaction {marker.SourceTransaction} " +
                $"and copy {marker.CopyStoreId:X16}, or has reserved bytes set");
        }

        return marker;
    }
}
