using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.InteropServices;

namespace Voron.Journal;

// FORMAT: journal record, version 3 — one committed write transaction in a journal file.
//
// A journal file (<journal dir>/{number:D19}.journal, preallocated and zero-filled ahead of its
// records, J10) is a sequence of records, each starting at a multiple of 4096 bytes and a whole
// number of 4096-byte blocks long. A record is a run of 512-byte SECTORS; each sector carries 508
// bytes of the record's BODY and ends with a 4-byte checksum of itself (its trailer). The body is
// a 128-byte header followed by the stored payload, a list of page entries (each an entry header
// followed by the entry's bytes), then zeros to the end of the record. One record is written with
// one positional write and made durable with one FlushData before the transaction is acknowledged
// (J2 in JournalWriter.cs). Integers are little-endian.
//
//   offset 0 (multiple of 4096)                        one sector (512 bytes)
//   +---------------------------------------------+   +------------------------------+---------+
//   | sector 0 | sector 1 | ... | sector n-1      |   | 508 body bytes               | trailer |
//   +---------------------------------------------+   +------------------------------+---------+
//   body: | header (128) | entry header (24) | bytes | entry header (24) | bytes | ... | zeros |
//
// Record header (body bytes 0..127, so always inside sector 0):
//   OFFSET SIZE NAME                     MEANING
//   0      8    Magic                    ASCII "VORONJNL" (0x4C4E4A4E4F524F56 read little-endian)
//   8      2    FormatVersion            3, the store's format version (Header/HeaderFile.cs); 2 in
//                                        records a version-2 store holds (see Compatibility)
//   10     2    Flags                    JournalRecordFlags: bit 0 = the payload is one LZ4
//                                        block (Compression/Lz4Block.cs); bit 1 = Lazy (written
//                                        without its own flush, lazy durability mode); bit 2 =
//                                        Sealed (see Sealed records); others zero
//   12     4    EntryCount               number of page entries in the payload, >= 0
//   16     8    TransactionId            the committed transaction; consecutive records differ by 1
//   24     8    StoredPayloadSize        bytes of payload as stored after the header
//   32     8    UncompressedPayloadSize  bytes of payload once decompressed (= stored unless LZ4)
//   40     4    Reserved                 zero (version 1: a payload checksum, now the trailers' job)
//   44     4    HeaderChecksum           see Checksums
//   48     64   State                    opaque environment state after the transaction (root
//                                        tree state, next page number, ...); never interpreted here
//   112    8    DurableThrough           every record with a transaction id up to this one was
//                                        durable (flushed) when this record was written; < TransactionId
//   120    8    CommitTime               when the writer encoded the record: UTC, Unix milliseconds,
//                                        never below the previous record's written by the same
//                                        process (the writer keeps it monotonic against the clock
//                                        stepping back); 0 = unknown (records
//                                        of the first version-2 builds). Read by point-in-time
//                                        restore (RestoreOptions.ToTime), never by recovery
//
// Page entry header (at the start of the payload, then right after the previous entry's bytes):
//   OFFSET SIZE NAME          MEANING
//   0      8    PageNumber    first page of the entry, > 0 (page 0 is the data file's identity)
//   8      4    PageCount     pages the entry spans, > 0 (an overflow run spans several)
//   12     4    StoredLength  bytes that follow this entry header
//   16     1    Encoding      JournalPageEncoding: 0 = full image (StoredLength = PageCount * 8192);
//                             1 = diff against the page's previous committed version (apply on
//                             top of the page as replay has left it); 2 = diff against zeros (a
//                             new page: zero-fill, then apply); 3 = in the data file (version 3
//                             only): the pages were written in place in the data file and made
//                             durable there before this record (Transactions/InPlacePages.cs,
//                             IP1–IP7), StoredLength = 4 and the bytes are the CRC32C (plain, not
//                             bound: it names data-file bytes) of the pages' PageCount * 8192
//                             bytes. Diff format: Journal/Diff/PageDiff.cs; a diff's StoredLength
//                             is below PageCount * 8192
//   17     7    Reserved      zero
//
// Checksums (CRC32C, Castagnoli, as System.Numerics.BitOperations.Crc32C computes it, with the
// usual initial value 0xFFFFFFFF and final inversion). Both are BOUND to the store and the file:
// the CRC runs first over the store's 8-byte StoreId (a random number drawn when the store was
// created, kept in the header file: Header/HeaderFile.cs) and the journal file's 8-byte number.
//   HeaderChecksum = CRC32C(StoreId, FileNumber, header bytes 0..127 with this field read as zero).
//   Trailer of sector k = CRC32C(StoreId, FileNumber, TransactionId (8), k (4), the sector's
//                         bytes 0..507).
// So bytes that do not know the store id — a value a client stored, whose bytes reach a journal
// record as page images — pass as a header only by a 1 in 2^32 guess, and a record copied from
// another store or another journal file (a recycled one) never does. Every sector of a record is
// covered, the zero padding included, so every sector of a valid record verifies.
//
// Hardware assumption (what makes a torn write tell-able from rot): a 512-byte sector, aligned,
// is written whole or not at all — after a power loss it holds its old bytes or its new ones
// (true of 512e and 4Kn disks, whose atomic unit is a multiple of it). Journal space past the end
// of the log always reads as zeros before a record is written into it (J10: files are created
// preallocated, never recycled, zero-filled ahead of the records; the resumed writer zeroes a
// torn tail before it writes over it: JournalWriter.ClearTail). So a sector of a record that a crash interrupted
// holds either its new bytes (it verifies) or zeros; a sector that holds anything else was
// written and has since changed: rot, a misdirected write, or a disk that broke the assumption.
//
// Validity. The slot at a 4096-aligned offset of journal file F has an INTACT header iff
//   JH1. offset + 512 <= the file's length;
//   JH2. Magic is "VORONJNL";
//   JH3. HeaderChecksum matches (bound to this store and file F).
// The slot holds a VALID record for the expected transaction id E iff
//   R1. its header is intact (JH1..JH3);
//   R2. TransactionId = E;
//   R3. FormatVersion is 2 or 3 (both read alike); a higher one is FormatVersionException, not
//       corruption: the record was written so by a newer build (its header is intact);
//   R4. Flags has no bit other than Lz4Compressed, Lazy and Sealed;
//   R5. the Reserved header bytes (40..43) are zero and CommitTime >= 0;
//   R6. EntryCount >= 0; with P = StoredPayloadSize, less 28 when Sealed (the nonce and tag),
//       0 <= P, UncompressedPayloadSize = P without LZ4 and 0 <= UncompressedPayloadSize <=
//       min(MaxRecordSize, 255 * P + 255) with it (an LZ4 block decodes to at most that:
//       MaxDecompressedSize), the record (RecordSize(StoredPayloadSize): ceil((128 +
//       StoredPayloadSize) / 508) sectors, rounded up to 4096 bytes) is at most MaxRecordSize
//       bytes and ends inside the file, and
//       0 <= DurableThrough < TransactionId;
//   R7. every sector's trailer matches;
//   R8. the payload is exactly EntryCount entries: each entry header lies inside the payload,
//       PageNumber > 0, PageCount > 0, PageNumber + PageCount does not overflow, Encoding is 0, 1
//       or 2, or 3 in a version-3 record, StoredLength = PageCount * 8192 for 0, <= PageCount *
//       8192 for 1 and 2 and = 4 for 3, and lies inside the payload, the Reserved entry bytes are
//       zero, and the last entry ends exactly at the (uncompressed) payload's end;
//   R9. with LZ4, the stored payload (opened first when Sealed) decodes (Lz4Block.Decompress,
//       rules LB1..) to exactly UncompressedPayloadSize bytes; a diff entry applies cleanly
//       (PageDiff rules) at replay.
//   R10. an in-data-file entry (encoding 3) of a record that recovery replays holds, after the
//       replay, its checksum in the data file, unless a later record of the replay overwrote one
//       of its pages (the later record then defines them: the flusher may have written its
//       version before the crash). A page that fails is damage — the pages were durable before
//       the record was (IP2), so no crash leaves them torn or missing — and recovery fails with a
//       CorruptionException naming the data file, the page's offset and the record
//       (StorageEnvironment.Recover, IP5). Replay that cannot reach the data file the entry
//       names (point-in-time restore from an archive, IP6) refuses the record the same way.
// A record whose R7 fails is TORN if every sector that fails is all zeros (the disk had not
// written it), DAMAGED if a failing sector holds anything else.
//
// Sealed records (encryption at rest, Sealing/SealFormat.cs, SL8; a store opened with its sealing
// key writes only these, and its header is format 4: Header/HeaderFile.cs). The payload is
// built and compressed as above, then sealed: the stored payload is nonce (12) | ciphertext | tag
// (16) (the sealed byte range of Sealing/SealFormat.cs), under the store's journal subkey, and
// opened before it is decompressed. The AAD is the 128-byte header with HeaderChecksum read as zero,
// then the journal file's number (8, little-endian): a payload moved to another record, file or
// store, or a changed header field (State included), does not open. The header stays plaintext;
// HeaderChecksum and the trailers cover the stored, sealed bytes, so JH1..JH3 and R1..R7 — hence
// torn against damaged — are decided without the key, as for a plaintext record. A record whose
// checksums all hold and whose tag fails is corruption (its checksums prove it was written so); a
// sealed record read without a key, or a plaintext one in a sealed journal, is corruption too.
//
// Compression rule (the writer's choice; readers accept either form): a payload is compressed
// only when the store enables it and the payload is at least CompressionThreshold bytes, and
// the compressed form is kept only when it saves at least a quarter of the bytes
// (CompressionPays). A payload longer than CompressionSample (64 KiB) is compressed only when a
// sample of it passes that test: CompressionSampleSlices slices of 16 KiB spread evenly from its
// start to its end (SampleSlices), each compressed on its own. Incompressible values (random,
// already compressed) then cost one 64 KiB LZ4 pass instead of a pass over the whole payload.
// The sample is skipped while payloads compress: after a payload compressed whole was kept
// compressed, the writer compresses the next long payload whole at once; one that does not pay
// brings the sample back. Workloads whose records compress (JSON documents: 64 concurrent saves
// write records of ~200 KiB) thus pay no extra 64 KiB pass a record, a quarter of their LZ4 work.
// Why these numbers (Voron.LoadTests; docs/results/2026-11-23.md):
//   - below ~4 KiB a record is one 4096-byte write either way, so compressing buys no I/O;
//   - on JSON, LZ4 saves far more than a quarter (the journal experiment's bytes did not move);
//   - on random values LZ4 saves less than a quarter, so their records are stored raw, and a
//     sample of the first 64 KiB alone passes many records whose whole payload then fails, their
//     LZ4 pass thrown away: the slices spread over the payload, and writes merged at many callers
//     gain from the rule (docs/results/2026-12-06-code-comment-measurements.md).
// What recovery makes of the slot where record E should be (JournalReader.cs has the pseudo-code):
//   valid record for E                 apply it, go on after it;
//   intact, TransactionId > E          a gap: corruption;
//   intact, = E, breaks R3..R6 or R8   corruption (the header checksum proves it was written so:
//                                      "unsupported encoding 1 in record tx 17"); a version above
//                                      3 (R3) is FormatVersionException instead;
//   torn record for E                  the end of the log (a crash interrupted its write), unless
//                                      a later intact record says E was durable (DurableThrough
//                                      >= E): then corruption; under JournalTailRecovery.Strict
//                                      always corruption;
//   damaged record for E, or a header  corruption: the sector was written and is wrong (under
//   sector that is neither intact nor  JournalTailRecovery.DiscardAnyDamage: handled like a torn
//   all zeros, or intact with tx < E   record, the version-1 behaviour);
//   all zeros, or the file's end       the end of the log, or the writer rotated: go on at offset 0
//                                      of the next file if its first record is E.
//
// Reading (JournalReader.Recover): start at the position the data file was last synced to,
// expecting the transaction after the last synced one; while the slot holds a valid record for
// E, apply it, E += 1, move to the end of the record; then decide as above.
//
// Compatibility: Magic, FormatVersion and HeaderChecksum keep their offsets in every version.
// A change to the layout or to the meaning of a field bumps FormatVersion, with the header file's
// (the store's format); a reader refuses a version it does not know (R3) and a flag or encoding it
// does not know (R4, R8), rather than misread it.
//   Version 1 records (no sectors, a plain CRC32C header checksum, a payload checksum at 40) are
//   not read by this version: a store whose journal still holds version-1 records that its data
//   file lacks is refused on open (FormatVersionException: open it once with the build that wrote
//   it and dispose it cleanly); a store cleanly closed by version 1 is upgraded on open (the
//   header file gets the current version and a store id, and the journal continues in a new file:
//   StorageEnvironment.Open.cs).
//   Version 2 brought the sectors and the bound checksums.
//   Version 3 has the layout of version 2 and differs in one meaning: CommitTime (offset 120) is
//   always the commit time. It was "Reserved, zero" in the first version-2 builds, which refuse a
//   record with a commit time under R5 as damaged; the last version-2 builds wrote it under
//   version 2. A version-2 record therefore reads as a version-3 record whose CommitTime may be 0
//   (unknown): recovery replays the version-2 records a version-2 store's journal holds, and a
//   backup or journal archive of a version-2 store restores. A journal file may hold version-2
//   records followed by version-3 ones (the open of a version-2 store goes on in the same file);
//   the header file says version 3 before the first version-3 record is written, so a version-2
//   build refuses such a store at its header (FormatVersionException) and never reaches them.
//   The Sealed flag (bit 2) belongs to no version yet: a store that seals its journal will bump
//   the store's format (the header file's), so a build that does not know the flag refuses the
//   store at its header (FormatVersionException) instead of calling its records damaged (R4).
//   Version 3 also brought encoding 3 (in the data file). It is read only in a version-3 record:
//   in a version-2 record it is corruption (R8), as any encoding a version does not know; a
//   version-2 build never meets it silently, since it refuses the store at its header first.

/// <summary>Constants, checksum and header accessors of the journal record; see the FORMAT block above.</summary>
internal static partial class JournalRecord
{
    /// <summary>"VORONJNL" read as a little-endian 64-bit integer.</summary>
    public const ulong Magic = 0x4C4E4A4E4F524F56;

    public const ushort FormatVersion = 3;

    /// <summary>The format version before a commit time was always written; read as this one (R3).</summary>
    public const ushort FormatVersion2 = 2;

    /// <summary>The format version before sectors (read only to tell a store it must be upgraded).</summary>
    public const ushort FormatVersion1 = 1;

    /// <summary>Records start at multiples of this and are a whole number of it long.</summary>
    public const int Alignment = 4096;

    /// <summary>The unit the disk is assumed to write whole (the hardware assumption above); each ends with a trailer.</summary>
    public const int SectorSize = 512;

    /// <summary>The checksum at the end of every sector.</summary>
    public const int SectorTrailerSize = 4;

    /// <summary>Body bytes each sector carries.</summary>
    public const int SectorDataSize = SectorSize - SectorTrailerSize;

    /// <summary>The largest record, header and padding included: the largest 4096-aligned
    /// buffer .NET can allocate. A transaction with more pages must be split by its caller.</summary>
    public const int MaxRecordSize = 0x7FFF_F000;

    // Record header (see the table above; same order).
    public const int HeaderSize = 128;
    public const int MagicOffset = 0;
    public const int FormatVersionOffset = 8;
    public const int FlagsOffset = 10;
    public const int EntryCountOffset = 12;
    public const int TransactionIdOffset = 16;
    public const int StoredPayloadSizeOffset = 24;
    public const int UncompressedPayloadSizeOffset = 32;
    public const int Reserved1Offset = 40;
    public const int Reserved1Size = 4;
    public const int HeaderChecksumOffset = 44;
    public const int StateOffset = 48;
    public const int StateSize = 64;
    public const int DurableThroughOffset = 112;
    public const int CommitTimeOffset = 120;
    public const int CommitTimeSize = 8;

    // Page entry header (see the table above; same order).
    public const int EntryHeaderSize = 24;
    public const int EntryPageNumberOffset = 0;
    public const int EntryPageCountOffset = 8;
    public const int EntryStoredLengthOffset = 12;
    public const int EntryEncodingOffset = 16;
    public const int EntryReservedOffset = 17;
    public const int EntryReservedSize = 7;

    /// <summary>Payloads smaller than this are stored uncompressed: the record is one 4 KiB write either way.</summary>
    public const int CompressionThreshold = (Alignment / SectorSize * SectorDataSize) - HeaderSize;

    /// <summary>Longer payloads are compressed only when a sample of this many bytes compresses (the compression rule).</summary>
    public const int CompressionSample = 64 * 1024;

    /// <summary>The sample is this many equal slices, spread from the payload's start to its end.</summary>
    public const int CompressionSampleSlices = 4;

    /// <summary>Whether a compressed payload is worth storing instead of the raw one (saves at least a quarter).</summary>
    public static bool CompressionPays(int raw, int compressed) => compressed <= raw - raw / 4;

    /// <summary>
    /// Where the compression rule samples a payload of <paramref name="payloadLength"/> bytes
    /// (longer than <see cref="CompressionSample"/>): <see cref="CompressionSampleSlices"/> slices,
    /// the first at its start, the last ending at its end, the others evenly between.
    /// </summary>
    public static IEnumerable<Range> SampleSlices(int payloadLength)
    {
        if (payloadLength <= CompressionSample)
        {
            throw new ArgumentOutOfRangeException(nameof(payloadLength), payloadLength, "Payloads up to the sample size are compressed whole, not sampled.");
        }

        const int sliceLength = CompressionSample / CompressionSampleSlices;
        var stride = (payloadLength - sliceLength) / (CompressionSampleSlices - 1);
        for (var i = 0; i < CompressionSampleSlices; i++)
        {
            var start = i == CompressionSampleSlices - 1 ? payloadLength - sliceLength : i * stride;
            yield return new Range(start, start + sliceLength);
        }
    }

    /// <summary>The stored bytes of an in-data-file entry (encoding 3): the CRC32C of its pages.</summary>
    public const int InDataFileLength = 4;

    /// <summary>The checksum an in-data-file entry (encoding 3) stores for the bytes of its pages (R10).</summary>
    public static uint InDataFileChecksum(ReadOnlySpan<byte> pages) => Voron.Crc32C.Compute(pages);

    /// <summary>The largest page count of one entry: its full image must fit a 32-bit StoredLength.</summary>
    public const int MaxEntryPageCount = int.MaxValue / Constants.PageSize;

    /// <summary>The largest stored payload a record of <see cref="MaxRecordSize"/> bytes holds.</summary>
    public const long MaxStoredPayloadSize = ((long)MaxRecordSize / SectorSize * SectorDataSize) - HeaderSize;

    /// <summary>
    /// The most an LZ4 block of <paramref name="storedSize"/> bytes can decode to: a sequence
    /// spends at least one byte per 255 bytes it produces. R6 bounds a record's declared
    /// uncompressed size by it, so the buffer it sizes is bounded by what the record holds.
    /// </summary>
    public static long MaxDecompressedSize(long storedSize) => (storedSize * 255) + 255;

    /// <summary>Rounds <paramref name="size"/> up to a multiple of <see cref="Alignment"/>.</summary>
    public static long AlignUp(long size) => (size + Alignment - 1) & ~(long)(Alignment - 1);

    /// <summary>The whole record's size for a stored payload of <paramref name="storedPayloadSize"/> bytes:
    /// enough sectors for the header and the payload, rounded up to 4096 bytes.</summary>
    public static long RecordSize(long storedPayloadSize)
    {
        var sectors = (HeaderSize + storedPayloadSize + SectorDataSize - 1) / SectorDataSize;
        return AlignUp(sectors * SectorSize);
    }

    /// <summary>CRC32C (Castagnoli) of <paramref name="bytes"/>.</summary>
    public static uint Crc32C(ReadOnlySpan<byte> bytes) => Voron.Crc32C.Compute(bytes);

    /// <summary>The running CRC after the binding every checksum of a record starts with: the store id and the file number.</summary>
    public static uint Bind(ulong storeId, long fileNumber) =>
        BitOperations.Crc32C(BitOperations.Crc32C(0xFFFFFFFF, storeId), (ulong)fileNumber);

    /// <summary>The header checksum: CRC32C of the binding and the 128-byte header with HeaderChecksum read as zero.</summary>
    public static uint ComputeHeaderChecksum(ReadOnlySpan<byte> header, ulong storeId, long fileNumber)
    {
        var crc = Voron.Crc32C.Append(Bind(storeId, fileNumber), header[..HeaderChecksumOffset]);
        crc = BitOperations.Crc32C(crc, 0u);
        crc = Voron.Crc32C.Append(crc, header[(HeaderChecksumOffset + 4)..HeaderSize]);
        return ~crc;
    }

    /// <summary>The transaction id a header claims; meaningful only for an intact header.</summary>
    public static long GetTransactionId(ReadOnlySpan<byte> header) =>
        BinaryPrimitives.ReadInt64LittleEndian(header[TransactionIdOffset..]);
}
