using System.Buffers.Binary;
using Voron.Platform;

namespace Voron.Files;

// FORMAT: header file, version 1 — headers.one and headers.two, 512 bytes each (one sector).
//
// The header says how far the data file is synced: which transaction it holds in full, where in
// the journal recovery starts, and the environment state as of that transaction. Two copies are
// kept and written alternately (odd revisions to headers.one, even to headers.two); the newest
// valid copy wins, so a write torn by a crash leaves the previous header usable.
//
//   +----------------------------------------------------------------------------------+
//   | Magic | Version | PageSize | Revision | LastSyncedTx | Journal pos | State | CRC |
//   +----------------------------------------------------------------------------------+
//
//   OFFSET SIZE NAME              MEANING
//   0      8    Magic             the ASCII bytes "VORONHDR"
//   8      4    FormatVersion     1; the version of every on-disk format of the store
//   12     4    PageSize          8192
//   16     8    Revision          incremented by every header write; >= 1
//   24     8    LastSyncedTxId    every transaction up to this one is in the data file and synced
//   32     8    JournalFile       journal file number of the first record after LastSyncedTxId
//   40     8    JournalOffset     byte offset of that record in that file
//   48     64   State             EnvironmentState as of LastSyncedTxId (Files/EnvironmentState.cs)
//   112    4    Checksum          CRC32C of bytes 0..111
//   116    396  Reserved          zero
//
// A copy is valid iff H1 the magic matches, H2 the checksum matches, H3 PageSize is 8192,
// H4 Revision >= 1, and H5 the state is valid. A copy that passes H1 and H2 but has another
// FormatVersion raises FormatVersionException: the store was written by another version.
//
// Open algorithm: read both copies; keep the valid ones and take the one with the higher
// Revision. None valid: a store whose creation a crash interrupted (no journal file, a data file
// of at most its identity page) is created again; anything else is a CorruptionException naming
// both files (StorageEnvironment.Open.cs). A copy created by a write is made durable by a sync of
// the store directory before the write returns. Write algorithm: revision = current + 1, write the 512 bytes to the copy for
// that revision, FlushData it. The other copy is untouched, so at every instant one valid copy
// exists (assuming a 512-byte write is not spread over both files, which it cannot be).

/// <summary>One decoded header copy.</summary>
internal readonly record struct HeaderRecord(long Revision, long LastSyncedTxId, long JournalFile, long JournalOffset, EnvironmentState State);

/// <summary>Reads and writes the two header copies; see the FORMAT block above.</summary>
internal static class HeaderFile
{
    public const int Size = 512;
    public const ulong Magic = 0x5244484E4F524F56; // the ASCII bytes "VORONHDR" read little-endian
    public const int FormatVersion = 1;
    private const int ChecksumOffset = 112;

    public static byte[] Encode(HeaderRecord header)
    {
        var bytes = new byte[Size];
        BinaryPrimitives.WriteUInt64LittleEndian(bytes, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(8), FormatVersion);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(12), Constants.PageSize);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(16), header.Revision);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(24), header.LastSyncedTxId);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(32), header.JournalFile);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(40), header.JournalOffset);
        header.State.WriteTo(bytes.AsSpan(48));
        BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(ChecksumOffset), Crc32C.Compute(bytes.AsSpan(0, ChecksumOffset)));
        return bytes;
    }

    /// <summary>Decodes a copy; null when it breaks H1, H2 or is short (a torn or missing copy).</summary>
    public static HeaderRecord? Decode(ReadOnlySpan<byte> bytes, string path)
    {
        if (bytes.Length < Size || BinaryPrimitives.ReadUInt64LittleEndian(bytes) != Magic ||
            BinaryPrimitives.ReadUInt32LittleEndian(bytes[ChecksumOffset..]) != Crc32C.Compute(bytes[..ChecksumOffset]))
        {
            return null;
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(bytes[8..]);
        if (version != FormatVersion)
        {
            throw new FormatVersionException(path, version, FormatVersion);
        }

        var pageSize = BinaryPrimitives.ReadInt32LittleEndian(bytes[12..]);
        var revision = BinaryPrimitives.ReadInt64LittleEndian(bytes[16..]);
        if (pageSize != Constants.PageSize || revision < 1)
        {
            throw new CorruptionException(path, 0, $"rule H3/H4: page size {pageSize}, revision {revision}");
        }

        return new HeaderRecord(
            revision,
            BinaryPrimitives.ReadInt64LittleEndian(bytes[24..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[32..]),
            BinaryPrimitives.ReadInt64LittleEndian(bytes[40..]),
            EnvironmentState.ReadFrom(bytes[48..], path, 48));
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

    /// <summary>Writes <paramref name="header"/> to the copy its revision selects and makes it durable.</summary>
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
