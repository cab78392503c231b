using System.Buffers.Binary;
using Voron.Platform;

namespace Voron.Replication;

// FORMAT: replica position, version 1 — voron.replica in a replica's directory (96 bytes).
//
// Where a replica (StorageEnvironment.OpenReplica) goes on reading its lineage's shipped journal:
// the journal object and offset of the next record to apply, that record's transaction, and the
// chain value (AO1) the object there must continue. The store itself says how far it applied
// (its last transaction: RE4), so this file moves only at object boundaries. Integers little-endian.
//
//   OFFSET SIZE NAME            MEANING
//   0      8    Magic           the ASCII bytes "VORONRPL"
//   8      2    FormatVersion   1
//   10     2    Flags           bit 0 = ChainKnown (Before holds the After the object at FileNumber
//                               must start from); other bits zero
//   12     4    Reserved        zero
//   16     8    Lineage         the followed lineage (the primary's store id); not zero
//   24     8    FileNumber      the journal object (file number) holding transaction NextTx; >= 0
//   32     8    Offset          where record NextTx starts in it; >= 0, a multiple of 4096
//   40     8    NextTx          the transaction expected at (FileNumber, Offset); >= 1
//   48     32   Before          the chain value object FileNumber must have as its Before (AO1)
//   80     8    LastCommitTime  when NextTx - 1 committed on the primary (UTC Unix ms; 0 = unknown)
//   88     4    Reserved        zero
//   92     4    Checksum        CRC32C of bytes 0..91
//
// Valid iff the file is 96 bytes, magic and checksum match, the version is 1 (a higher one is
// FormatVersionException), the flags have no unknown bit, reserved bytes are zero, Lineage is not
// zero, FileNumber and Offset are not negative and Offset is a multiple of 4096, NextTx >= 1.
// Anything else is a CorruptionException naming the file.
// Written to voron.replica.tmp, synced, renamed over voron.replica, directory synced: a crash
// leaves the old position or the new one, never a mix (RE4 makes either one correct).
// Compatibility: a later version bumps FormatVersion; this build refuses one it does not know.

/// <summary>A replica's position in its lineage's shipped journal (the FORMAT block above).</summary>
internal sealed record ReplicaPosition(ulong Lineage, long FileNumber, long Offset, long NextTx, byte[]? Before, long LastCommitTime)
{
    public const string FileName = "voron.replica";
    public const int Size = 96;
    public const ulong Magic = 0x4C52504E4F524F56; // "VORONRPL" read little-endian
    public const ushort FormatVersion = 1;
    public const int FormatVersionOffset = 8;
    public const int FlagsOffset = 10;
    public const int Reserved1Offset = 12;
    public const int LineageOffset = 16;
    public const int FileNumberOffset = 24;
    public const int OffsetOffset = 32;
    public const int NextTxOffset = 40;
    public const int BeforeOffset = 48;
    public const int LastCommitTimeOffset = 80;
    public const int Reserved2Offset = 88;
    public const int ChecksumOffset = 92;
    private const ushort ChainKnown = 1;

    public byte[] Encode()
    {
        var bytes = new byte[Size];
        var span = bytes.AsSpan();
        BinaryPrimitives.WriteUInt64LittleEndian(span, Magic);
        BinaryPrimitives.WriteUInt16LittleEndian(span[FormatVersionOffset..], FormatVersion);
        BinaryPrimitives.WriteUInt16LittleEndian(span[FlagsOffset..], Before == null ? (ushort)0 : ChainKnown);
        BinaryPrimitives.WriteUInt64LittleEndian(span[LineageOffset..], Lineage);
        BinaryPrimitives.WriteInt64LittleEndian(span[FileNumberOffset..], FileNumber);
        BinaryPrimitives.WriteInt64LittleEndian(span[OffsetOffset..], Offset);
        BinaryPrimitives.WriteInt64LittleEndian(span[NextTxOffset..], NextTx);
        Before?.CopyTo(span[BeforeOffset..]);
        BinaryPrimitives.WriteInt64LittleEndian(span[LastCommitTimeOffset..], LastCommitTime);
        BinaryPrimitives.WriteUInt32LittleEndian(span[ChecksumOffset..], Crc32C.Compute(span[..ChecksumOffset]));
        return bytes;
    }

    public static ReplicaPosition Decode(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length != Size || BinaryPrimitives.ReadUInt64LittleEndian(bytes) != Magic)
        {
            throw new CorruptionException(path, 0, $"not a replica position ({bytes.Length} bytes, or the wrong magic): the file is damaged; delete the replica's directory and open the replica again");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[ChecksumOffset..]) != Crc32C.Compute(bytes[..ChecksumOffset]))
        {
            throw new CorruptionException(path, ChecksumOffset, "the replica position's checksum does not match: delete the replica's directory and open the replica again");
        }

        var version = BinaryPrimitives.ReadUInt16LittleEndian(bytes[FormatVersionOffset..]);
        if (version > FormatVersion)
        {
            throw new FormatVersionException(path, version, FormatVersion, "A newer Voron build follows this replica; open it with that build.");
        }

        var flags = BinaryPrimitives.ReadUInt16LittleEndian(bytes[FlagsOffset..]);
        var position = new ReplicaPosition(
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[LineageOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[FileNumberOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[OffsetOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[NextTxOffset..]),
            (flags & ChainKnown) != 0 ? bytes.Slice(BeforeOffset, 32).ToArray() : null,
            BinaryPrimitives.ReadInt64LittleEndian(bytes[LastCommitTimeOffset..]));
        if (version != FormatVersion || (flags & ~ChainKnown) != 0 || BinaryPrimitives.ReadUInt32LittleEndian(bytes[Reserved1Offset..]) != 0 ||
            BinaryPrimitives.ReadUInt32LittleEndian(bytes[Reserved2Offset..]) != 0 || position.Lineage == 0 || position.FileNumber < 0 ||
            position.Offset < 0 || position.Offset % Journal.JournalRecord.Alignment != 0 || position.NextTx < 1 || position.LastCommitTime < 0)
        {
            throw new CorruptionException(path, 0, $"the replica position's fields are invalid (version {version}, flags {flags}, file {position.FileNumber}, " +
                $"offset {position.Offset}, next transaction {position.NextTx}): delete the replica's directory and open the replica again");
        }

        return position;
    }

    public static ReplicaPosition? Read(IFileSystem fileSystem, string directory)
    {
        var path = System.IO.Path.Combine(directory, FileName);
        if (!fileSystem.FileExists(path))
        {
            return null;
        }

        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var bytes = new byte[Math.Min(file.Length, Size + 1)];
        var read = file.Read(0, bytes);
        return Decode(bytes.AsSpan(0, read), path);
    }

    /// <summary>Replaces the position durably: temp file, sync, rename, directory sync (the FORMAT block).</summary>
    public void Write(IFileSystem fileSystem, string directory)
    {
        var path = System.IO.Path.Combine(directory, FileName);
        var temp = path + ".tmp";
        using (var file = fileSystem.Open(temp, FileOpenMode.OpenOrCreate))
        {
            file.SetLength(0);
            file.Write(0, Encode());
            file.FlushData();
        }

        fileSystem.MoveFile(temp, path);
        fileSystem.SyncDirectory(directory);
    }
}
