using System.Buffers.Binary;
using Voron.Platform;
using Voron.Sealing;

namespace Voron.Header;

// FORMAT: header file, version 3 (version 4: a sealed store) — headers.one and headers.two, 512 bytes each (one sector).
//
// The header says how far the data file is synced: which transaction it holds in full, where in
// the journal recovery starts, and the environment state as of that transaction. It also holds
// the store's id, which binds every journal record to this store (Journal/JournalRecord.cs). Two
// copies are kept and written alternately (odd revisions to headers.one, even to headers.two); the
// newest valid copy wins, so a write torn by a crash leaves the previous header usable.
//
//   +-----------------------------------------------------------------------------------------+
//   | Magic | Version | PageSize | Revision | LastSyncedTx | Journal pos | State | CRC | StoreId |
//   +-----------------------------------------------------------------------------------------+
//
//   OFFSET SIZE NAME              MEANING
//   0      8    Magic             the ASCII bytes "VORONHDR"
//   8      4    FormatVersion     3, or 4 for a sealed store; the store's format: of the header file, the journal records
//                                  (Journal/JournalRecord.cs) and the tree pages (Trees/TreePage.cs)
//   12     4    PageSize          8192
//   16     8    Revision          incremented by every header write; >= 1
//   24     8    LastSyncedTxId    every transaction up to this one is in the data file and synced; >= 0
//   32     8    JournalFile       journal file number of the first record after LastSyncedTxId; >= 0
//   40     8    JournalOffset     byte offset of that record in that file; >= 0, a multiple of 4096
//   48     64   State             EnvironmentState as of LastSyncedTxId (Header/EnvironmentState.cs)
//   112    4    Checksum          CRC32C of all 512 bytes with this field read as zero
//   116    4    Reserved          zero
//   120    8    StoreId           random, not zero, drawn when the store is created; never changes
//   128    384  Reserved          zero (version 3); in version 4 (a sealed store, Sealing/SealFormat.cs):
//   128    1    Algorithm         the AEAD (SealAlgorithm): 1 AES-256-GCM, 2 ChaCha20-Poly1305 (SL6)
//   129    7    Reserved          zero
//   136    32   Salt              random, drawn when the store is created; the key derivation's salt (SL2)
//   168    16   CheckValue        derived from the user's key (SL2); tells a wrong key from damage (SL5)
//   184    328  Reserved          zero
// Nothing derived from the key but the check value is here, and the key itself never is.
//
// A copy is valid iff
//   HF1. the magic matches;
//   HF2. the checksum matches;
//   HF3. PageSize is 8192;
//   HF4. 1 <= Revision < 2^63-1;
//   HF5. the state is valid;
//   HF6. 0 <= LastSyncedTxId < 2^63-1, 0 <= JournalFile < 2^63-1 (each is incremented after
//        open: the largest long would wrap) and JournalOffset >= 0 is a multiple of 4096;
//   HF7. StoreId is not zero and the reserved bytes are zero;
//   HF8. version 4 only: Algorithm is 1 or 2 (the salt and check value are any bytes).
// A copy that fails HF1 or HF2 is torn or missing (the other copy is used); one that passes
// them and fails HF3..HF8 was written so, and is a CorruptionException. A copy that passes HF1 and
// a checksum (either one for a version this build does not know) but has a FormatVersion other
// than 1, 2, 3 or 4 raises FormatVersionException naming the file, the version
// found and 4: the store was written by another build. Every build since version 2 reads the
// header before any other file of the store (StorageEnvironment.Open.cs, step 2) and checks its
// version this way, so a build that does not know a store's format stops here, before it reads
// a journal record or a tree page it would misread as damage.
//
// Open algorithm: read both copies; keep the valid ones and take the one with the higher
// Revision. None valid: a store whose creation a crash interrupted (no journal file, a data file
// of at most its identity page) is created again; anything else is a CorruptionException naming
// both files (StorageEnvironment.Open.cs). A copy created by a write is made durable by a sync of
// the store directory before the write returns. Write algorithm: revision = current + 1, write
// the 512 bytes to the copy for that revision, FlushData it. The other copy is untouched, so at
// every instant one valid copy exists (assuming a 512-byte write is not spread over both files,
// which it cannot be).
//
// Compatibility: the version is the store's, and it moves whenever a byte of the store changes
// meaning, so that a build that does not know it refuses the store (FormatVersionException)
// instead of reporting a store it cannot read as damaged.
//   Version 1 had the same fields up to the checksum, which covered bytes 0..111 only, and no
//   StoreId (bytes 116..511 unchecked). A version-1 copy decodes with StoreId 0; the open upgrades
//   such a store when its journal holds nothing the data file lacks (it writes a current copy with
//   a new StoreId, the journal continuing in a new file) and refuses it with
//   FormatVersionException otherwise (StorageEnvironment.Open.cs, UpgradeFormat1).
//   Version 2 added the StoreId, the checksum over all 512 bytes and the journal's sectors.
//   Version 3 has the header layout of version 2. It says that the store may hold what the first
//   version-2 builds misread as damage: leaf values of 2-4 KiB kept inline (inline nodes of
//   2031..4062 bytes; Trees/TreePage.cs, B2) and journal records with a commit time at offset 120
//   (Journal/JournalRecord.cs, R5). The last version-2 builds wrote both under version 2; every
//   version-2 store, of any build, is a subset of version 3 (runs of 2-4 KiB values read, B6; a
//   commit time of 0 reads as unknown). Version 3 also lets a tree page keep holes among its node
//   bodies (Holes at page-header offset 18, zero in every version-2 page; Trees/TreePage.cs, B8). A version-2 store is therefore read as it is, not converted: the
//   open writes a version-3 copy before it writes anything else (before the first journal record
//   of this build, which a version-2 build would refuse as damaged, R3), and that copy is what
//   makes a version-2 build refuse the store from then on.
//   Version 4 is a sealed store (Sealing/SealFormat.cs): version 3 with the seal fields in bytes
//   128..183, which a version-3 build's HF7 would report as damage; version 4 makes it refuse the
//   store as a newer format instead. A store is created sealed or not and stays so: an unsealed
//   store keeps writing version 3, byte for byte as before, and a version-4 copy is written only
//   with its seal fields. The journal records and tree pages of both versions are those of
//   version 3 (a sealed store's records carry the Sealed flag, Journal/JournalRecord.cs).

/// <summary>One decoded header copy. <see cref="StoreId"/> is 0 only for a copy of format version 1.</summary>
internal readonly record struct HeaderRecord(long Revision, long LastSyncedTxId, long JournalFile, long JournalOffset, EnvironmentState State, ulong StoreId)
{
    /// <summary>The version the copy was read with (1..4); a copy built in memory is of the current version, which every write writes.</summary>
    public int FormatVersion { get; init; } = HeaderFile.FormatVersion;

    /// <summary>The seal fields of a sealed store (format version 4), or null for a store that is not sealed.</summary>
    public HeaderSeal? Seal { get; init; }

    /// <summary>The version a write of this copy writes: 4 for a sealed store, else 3.</summary>
    public int CurrentFormatVersion => Seal is null ? HeaderFile.FormatVersion : HeaderFile.SealedFormatVersion;

    /// <summary>Whether the copy was written by format version 1 (no store id).</summary>
    public bool IsFormat1 => StoreId == 0;
}

/// <summary>Reads and writes the two header copies; see the FORMAT block above.</summary>
internal static class HeaderFile
{
    public const int Size = 512;
    public const ulong Magic = 0x5244484E4F524F56; // the ASCII bytes "VORONHDR" read little-endian
    /// <summary>The version an unsealed store writes.</summary>
    public const int FormatVersion = 3;

    /// <summary>The version a sealed store writes; the newest this build reads.</summary>
    public const int SealedFormatVersion = 4;
    public const int FormatVersion2 = 2;
    public const int FormatVersion1 = 1;
    public const int MagicOffset = 0;
    public const int FormatVersionOffset = 8;
    public const int PageSizeOffset = 12;
    public const int RevisionOffset = 16;
    public const int LastSyncedTxIdOffset = 24;
    public const int JournalFileOffset = 32;
    public const int JournalOffsetOffset = 40;
    public const int StateOffset = 48;
    public const int ChecksumOffset = 112;
    public const int Reserved1Offset = 116;
    public const int StoreIdOffset = 120;
    public const int Reserved2Offset = 128;

    // Version 4 (a sealed store): the seal fields, inside what version 3 reserves.
    public const int SealAlgorithmOffset = 128;
    public const int SealReservedOffset = 129;
    public const int SaltOffset = 136;
    public const int CheckValueOffset = 168;
    public const int SealFieldsEnd = CheckValueOffset + SealFormat.CheckValueSize;

    public static byte[] Encode(HeaderRecord header)
    {
        if (header.IsFormat1)
        {
            throw new ArgumentException("A header is written with a store id (format version 2 and later).", nameof(header));
        }

        var bytes = new byte[Size];
        BinaryPrimitives.WriteUInt64LittleEndian(bytes, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(FormatVersionOffset), header.CurrentFormatVersion);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(PageSizeOffset), Constants.PageSize);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(RevisionOffset), header.Revision);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(LastSyncedTxIdOffset), header.LastSyncedTxId);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(JournalFileOffset), header.JournalFile);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(JournalOffsetOffset), header.JournalOffset);
        header.State.WriteTo(bytes.AsSpan(StateOffset));
        BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(StoreIdOffset), header.StoreId);
        if (header.Seal is { } seal)
        {
            bytes[SealAlgorithmOffset] = (byte)seal.Algorithm;
            seal.Salt.CopyTo(bytes.AsSpan(SaltOffset));
            seal.CheckValue.CopyTo(bytes.AsSpan(CheckValueOffset));
        }

        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ChecksumOffset), ComputeChecksum(bytes));
        return bytes;
    }

    /// <summary>CRC32C of the 512 bytes with the checksum field read as zero (versions 2 to 4).</summary>
    public static uint ComputeChecksum(ReadOnlySpan<byte> bytes)
    {
        var crc = Crc32C.Append(0xFFFFFFFF, bytes[..ChecksumOffset]);
        crc = System.Numerics.BitOperations.Crc32C(crc, 0u);
        return ~Crc32C.Append(crc, bytes[(ChecksumOffset + 4)..Size]);
    }

    /// <summary>Decodes a copy; null when it breaks HF1 or HF2 or is short (a torn or missing copy).</summary>
    public static HeaderRecord? Decode(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length < Size || BinaryPrimitives.ReadUInt64LittleEndian(bytes) != Magic)
        {
            return null;
        }

        bytes = bytes[..Size];
        var version = BinaryPrimitives.ReadInt32LittleEndian(bytes[FormatVersionOffset..]);
        var stored = BinaryPrimitives.ReadUInt32LittleEndian(bytes[ChecksumOffset..]);
        var matches2 = stored == ComputeChecksum(bytes);
        var matches1 = stored == Crc32C.Compute(bytes[..ChecksumOffset]);
        if (version is SealedFormatVersion or FormatVersion or FormatVersion2 ? !matches2 : version == FormatVersion1 ? !matches1 : !(matches1 || matches2))
        {
            return null;
        }

        if (version is not (SealedFormatVersion or FormatVersion or FormatVersion2 or FormatVersion1))
        {
            throw new FormatVersionException(path, version, SealedFormatVersion,
                version > SealedFormatVersion ? "The store was written by a newer Voron build; open it with that build or a later one." :
                "This is not a version any Voron build wrote.");
        }

        var pageSize = BinaryPrimitives.ReadInt32LittleEndian(bytes[PageSizeOffset..]);
        var revision = BinaryPrimitives.ReadInt64LittleEndian(bytes[RevisionOffset..]);
        if (pageSize != Constants.PageSize || revision < 1 || revision == long.MaxValue)
        {
            throw new CorruptionException(path, 0, $"rule HF3/HF4: page size {pageSize}, revision {revision}");
        }

        var synced = BinaryPrimitives.ReadInt64LittleEndian(bytes[LastSyncedTxIdOffset..]);
        var journalFile = BinaryPrimitives.ReadInt64LittleEndian(bytes[JournalFileOffset..]);
        var journalOffset = BinaryPrimitives.ReadInt64LittleEndian(bytes[JournalOffsetOffset..]);
        if (synced < 0 || synced == long.MaxValue || journalFile < 0 || journalFile == long.MaxValue || journalOffset < 0 ||
            journalOffset % Journal.JournalRecord.Alignment != 0)
        {
            throw new CorruptionException(path, LastSyncedTxIdOffset,
                $"rule HF6: last synced transaction {synced}, journal file {journalFile}, journal offset {journalOffset}");
        }

        var storeId = 0UL;
        HeaderSeal? seal = null;
        if (version != FormatVersion1)
        {
            var sealedCopy = version == SealedFormatVersion;
            var reserved = sealedCopy
                ? bytes.Slice(SealReservedOffset, SaltOffset - SealReservedOffset).ContainsAnyExcept((byte)0) || bytes[SealFieldsEnd..].ContainsAnyExcept((byte)0)
                : bytes[Reserved2Offset..].ContainsAnyExcept((byte)0);
            storeId = BinaryPrimitives.ReadUInt64LittleEndian(bytes[StoreIdOffset..]);
            if (storeId == 0 || bytes.Slice(Reserved1Offset, 4).ContainsAnyExcept((byte)0) || reserved)
            {
                throw new CorruptionException(path, StoreIdOffset, "rule HF7: the store id is zero or a reserved byte is not");
            }

            if (sealedCopy)
            {
                var algorithm = (SealAlgorithm)bytes[SealAlgorithmOffset];
                if (algorithm is not (SealAlgorithm.AesGcm or SealAlgorithm.ChaCha20Poly1305))
                {
                    throw new CorruptionException(path, SealAlgorithmOffset, $"rule HF8: a sealed store's algorithm is 1 or 2, not {(byte)algorithm}");
                }

                seal = new HeaderSeal(algorithm, bytes.Slice(SaltOffset, SealFormat.SaltSize).ToArray(), bytes.Slice(CheckValueOffset, SealFormat.CheckValueSize).ToArray());
            }
        }

        return new HeaderRecord(revision, synced, journalFile, journalOffset, EnvironmentState.ReadFrom(bytes[StateOffset..], path, StateOffset), storeId)
        {
            FormatVersion = version,
            Seal = seal,
        };
    }

    /// <summary>The newest valid copy; null when neither copy is valid or present (the caller decides whether that is a new store).</summary>
    public static HeaderRecord? ReadNewest(IFileSystem fileSystem, StoreLayout layout) => ReadNewest(fileSystem, layout, out _);

    /// <summary>As <see cref="ReadNewest(IFileSystem, StoreLayout)"/>, also counting the copies present.</summary>
    public static HeaderRecord? ReadNewest(IFileSystem fileSystem, StoreLayout layout, out int present)
    {
        HeaderRecord? newest = null;
        present = 0;
        foreach (var path in new[] { layout.HeaderFile(1), layout.HeaderFile(2) })
        {
            if (!fileSystem.FileExists(path))
            {
                continue;
            }

            present++;
            using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
            var bytes = new byte[Size];
            var read = file.Read(0, bytes);
            var header = Decode(bytes.AsSpan(0, read), path);
            if (header is { } h && (newest == null || h.Revision > newest.Value.Revision))
            {
                newest = h;
            }
        }

        return newest;
    }

    /// <summary>Writes <paramref name="header"/> to the copy its revision selects, as the current format version, and makes it durable.</summary>
    public static void Write(IFileSystem fileSystem, StoreLayout layout, HeaderRecord header)
    {
        var path = layout.HeaderFile(header.Revision);
        var created = !fileSystem.FileExists(path);
        using (var file = fileSystem.Open(path, FileOpenMode.OpenOrCreate))
        {
            file.Write(0, Encode(header));
            file.FlushData();
        }

        if (created)
        {
            // The copy's name must be durable before anything relies on it (F2): the flush that
            // writes the first headers.two then releases journal files only headers.one pointed to.
            fileSystem.SyncDirectory(layout.Directory);
        }
    }
}
