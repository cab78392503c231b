using System.Buffers.Binary;
using System.Globalization;
using Voron.Platform;

namespace Voron.Journal;

// FORMAT: archived compaction note, version 1 — <archive>/{F:D19}.compacted, 80 bytes.
//
// Compaction gives a store a new id and new page numbers (StorageEnvironment.Compaction.cs), so
// the journal the compacted store writes cannot be replayed onto a backup taken before. When the
// store archives its journal (StorageEnvironmentOptions.JournalArchiveDirectory), the swap first
// archives the old store's last journal files and then writes this note beside them (JA9): it
// says where the old store's log ends in the archive (file F, transaction T) and where the
// compacted store's begins, so that restore replays a backup taken before the compaction up to T
// exactly, and refuses a later target naming the compaction instead of failing on the compacted
// store's files. Integers are little-endian.
//
//   OFFSET SIZE NAME               MEANING
//   0      8    Magic              the ASCII bytes "VORONACN"
//   8      4    FormatVersion      1
//   12     4    Reserved           zero
//   16     8    SourceStoreId      the id of the store that was compacted
//   24     8    SourceTransaction  its last transaction (T): its archived records end with it
//   32     8    SourceLastFile     its last journal file (F), archived; the number in the note's name
//   40     8    CopyStoreId        the compacted store's id
//   48     8    CopyTransaction    the transaction the compacted store starts from (>= T, CP5):
//                                  its first record is CopyTransaction + 1
//   56     8    CopyFirstFile      the compacted store's first journal file (> F)
//   64     8    CompactedUnixMs    when the note was written, UTC Unix milliseconds: after every
//                                  commit of the old store and before any of the compacted one
//   72     4    Reserved           zero
//   76     4    Checksum           CRC32C of bytes 0..75
//
// Valid iff
//   AC1. the file is exactly 80 bytes and the magic matches;
//   AC2. the checksum matches;
//   AC3. FormatVersion is 1; a higher one is FormatVersionException (a newer build wrote it), a
//        lower one CorruptionException;
//   AC4. the store ids are not zero and differ, 0 <= SourceTransaction <= CopyTransaction,
//        0 <= SourceLastFile < CopyFirstFile, SourceLastFile is the number in the file's name,
//        CompactedUnixMs >= 0, and the reserved bytes are zero.
// Anything else is a CorruptionException naming the file. A note is written once, as the
// archived journal files are (JA3: "<name>.partial", FlushData, rename, directory sync), so a
// crash never leaves one torn under its final name; a second roll-forward of the same swap finds
// it there and keeps it (JA9).
//
// Compatibility: a new field takes reserved bytes and bumps the version; readers refuse versions
// they do not know. Builds before this note ignore files of this name (they list *.journal only).

/// <summary>The decoded note; see the FORMAT block above.</summary>
internal sealed record ArchivedCompaction(ulong SourceStoreId, long SourceTransaction, long SourceLastFile, ulong CopyStoreId, long CopyTransaction,
    long CopyFirstFile, long CompactedUnixMs)
{
    public const string Extension = ".compacted";
    public const int Size = 80;
    public const ulong Magic = 0x4E43414E4F524F56; // the ASCII bytes "VORONACN" read little-endian
    public const int FormatVersion = 1;
    public const int MagicOffset = 0;
    public const int FormatVersionOffset = 8;
    public const int Reserved1Offset = 12;
    public const int SourceStoreIdOffset = 16;
    public const int SourceTransactionOffset = 24;
    public const int SourceLastFileOffset = 32;
    public const int CopyStoreIdOffset = 40;
    public const int CopyTransactionOffset = 48;
    public const int CopyFirstFileOffset = 56;
    public const int CompactedOffset = 64;
    public const int Reserved2Offset = 72;
    public const int ChecksumOffset = 76;

    /// <summary>Where the note for a store whose last journal file is <paramref name="sourceLastFile"/> lies in <paramref name="archive"/>.</summary>
    public static string PathOf(string archive, long sourceLastFile) =>
        Path.Combine(archive, sourceLastFile.ToString("D19", CultureInfo.InvariantCulture) + Extension);

    public byte[] Encode()
    {
        var bytes = new byte[Size];
        var span = bytes.AsSpan();
        BinaryPrimitives.WriteUInt64LittleEndian(span[MagicOffset..], Magic);
        BinaryPrimitives.WriteInt32LittleEndian(span[FormatVersionOffset..], FormatVersion);
        BinaryPrimitives.WriteUInt64LittleEndian(span[SourceStoreIdOffset..], SourceStoreId);
        BinaryPrimitives.WriteInt64LittleEndian(span[SourceTransactionOffset..], SourceTransaction);
        BinaryPrimitives.WriteInt64LittleEndian(span[SourceLastFileOffset..], SourceLastFile);
        BinaryPrimitives.WriteUInt64LittleEndian(span[CopyStoreIdOffset..], CopyStoreId);
        BinaryPrimitives.WriteInt64LittleEndian(span[CopyTransactionOffset..], CopyTransaction);
        BinaryPrimitives.WriteInt64LittleEndian(span[CopyFirstFileOffset..], CopyFirstFile);
        BinaryPrimitives.WriteInt64LittleEndian(span[CompactedOffset..], CompactedUnixMs);
        BinaryPrimitives.WriteUInt32LittleEndian(span[ChecksumOffset..], Crc32C.Compute(span[..ChecksumOffset]));
        return bytes;
    }

    /// <summary>Decodes and validates (AC1..AC4) the note read from <paramref name="path"/>.</summary>
    public static ArchivedCompaction Decode(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length != Size || BinaryPrimitives.ReadUInt64LittleEndian(bytes[MagicOffset..]) != Magic)
        {
            throw new CorruptionException(path, 0, $"AC1: a compaction note is {Size} bytes and starts with \"VORONACN\"; this one is {bytes.Length} bytes or lacks the magic");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[ChecksumOffset..]) != Crc32C.Compute(bytes[..ChecksumOffset]))
        {
            throw new CorruptionException(path, ChecksumOffset, "AC2: the compaction note's checksum does not match (damaged)");
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(bytes[FormatVersionOffset..]);
        if (version > FormatVersion)
        {
            throw new FormatVersionException(path, version, FormatVersion, "The journal archive's compaction note was written by a newer Voron build; restore with that build.");
        }

        if (version != FormatVersion)
        {
            throw new CorruptionException(path, FormatVersionOffset, $"AC3: format version {version}");
        }

        var note = new ArchivedCompaction(
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[SourceStoreIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[SourceTransactionOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[SourceLastFileOffset..]),
            BinaryPrimitives.ReadUInt64LittleEndian(bytes[CopyStoreIdOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[CopyTransactionOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[CopyFirstFileOffset..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[CompactedOffset..]));
        var named = Path.GetFileName(path) is { } name && name.EndsWith(Extension, StringComparison.Ordinal) &&
            long.TryParse(name[..^Extension.Length], NumberStyles.None, CultureInfo.InvariantCulture, out var number) && number == note.SourceLastFile;
        if (note.SourceStoreId == 0 || note.CopyStoreId == 0 || note.SourceStoreId == note.CopyStoreId || note.SourceTransaction < 0 ||
            note.CopyTransaction < note.SourceTransaction || note.SourceLastFile < 0 || note.CopyFirstFile <= note.SourceLastFile || !named ||
            note.CompactedUnixMs < 0 || bytes.Slice(Reserved1Offset, 4).ContainsAnyExcept((byte)0) || bytes.Slice(Reserved2Offset, 4).ContainsAnyExcept((byte)0))
        {
            throw new CorruptionException(path, 0,
                "AC4: a compaction note field is out of range (store ids, transactions, journal files, the file's name, time or reserved bytes)");
        }

        return note;
    }

    /// <summary>The valid notes in <paramref name="archive"/> (none when it is missing), by SourceLastFile; an invalid one throws (AC1..AC4).</summary>
    public static List<ArchivedCompaction> List(IFileSystem fileSystem, string archive)
    {
        var notes = new List<ArchivedCompaction>();
        foreach (var path in fileSystem.ListFiles(archive, "*" + Extension))
        {
            notes.Add(Read(fileSystem, path));
        }

        notes.Sort((a, b) => a.SourceLastFile.CompareTo(b.SourceLastFile));
        return notes;
    }

    private static ArchivedCompaction Read(IFileSystem fileSystem, string path)
    {
        using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
        var bytes = new byte[Math.Min(file.Length, Size + 1)];
        var read = file.Read(0, bytes);
        return Decode(bytes.AsSpan(0, read), path);
    }

    /// <summary>
    /// Writes the note into <paramref name="archive"/> durably (JA3's way), unless the same
    /// compaction's note is there already (a roll-forward run again after a crash). A note of
    /// another compaction under the same name is an IOException: JA4, never overwritten.
    /// </summary>
    public void Write(IFileSystem fileSystem, string archive)
    {
        var path = PathOf(archive, SourceLastFile);
        if (fileSystem.FileExists(path))
        {
            var existing = Read(fileSystem, path);
            if (existing.SourceStoreId == SourceStoreId && existing.CopyStoreId == CopyStoreId)
            {
                return;
            }

            throw new IOException(
                $"JA4: the journal archive '{archive}' already holds the compaction note '{Path.GetFileName(path)}' of another compaction (store " +
                $"{existing.SourceStoreId:X16} into {existing.CopyStoreId:X16}); archive files are never overwritten. Is another store archiving to " +
                "the same directory? Move that file away (or give this store its own archive directory) and open the store again to finish the compaction.");
        }

        var partial = path + JournalArchiver.PartialSuffix;
        fileSystem.DeleteFile(partial);
        using (var file = fileSystem.Open(partial, FileOpenMode.CreateNew))
        {
            file.Write(0, Encode());
            file.FlushData();
        }

        fileSystem.MoveFile(partial, path);
        fileSystem.SyncDirectory(archive);
    }
}
