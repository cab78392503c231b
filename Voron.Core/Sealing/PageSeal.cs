using System.Buffers.Binary;
using Voron.Paging;

namespace Voron.Sealing;

/// <summary>
/// Seals and opens data-file pages and overflow runs (the FORMAT block in SealFormat.cs), and
/// page-file blocks, whose nonce and tag live in their map entry. Uses one <see cref="Aead"/>, so
/// one thread at a time (SL6); the nonce source may be shared.
/// </summary>
internal sealed class PageSeal(Aead aead, NonceSource nonces)
{
    private const int PageAadSize = sizeof(long) + SealFormat.PageAadFieldsSize;
    private const int BlockAadSize = sizeof(long) + 1;

    /// <summary>The last byte of a block's AAD: no page's AAD has a 9-byte form, and this marks the domain besides (SL3).</summary>
    private const byte BlockDomain = 0xB1;

    /// <summary>
    /// Seals the page or run <paramref name="run"/> in place: its plaintext image, with a stamped
    /// checksum and page-header bytes 24..63 zero. Afterwards the body is ciphertext, bytes 24..51
    /// hold the nonce and tag, and the checksum is that of the sealed bytes (SL4). The caller seals
    /// a copy it alone reads (SL9).
    /// </summary>
    public void Seal(Span<byte> run)
    {
        if (run.Length < Constants.PageSize || run.Length % Constants.PageSize != 0)
        {
            throw new ArgumentException($"A sealed page or run is a whole number of {Constants.PageSize}-byte pages; got {run.Length} bytes.", nameof(run));
        }

        if (run[SealFormat.PageNonceOffset..PageHeader.Size].ContainsAnyExcept((byte)0))
        {
            throw new ArgumentException(
                $"Page {PageHeader.GetPageNumber(run)} has bytes in page-header bytes {SealFormat.PageNonceOffset}..{PageHeader.Size - 1}, where the seal goes: they must be zero.",
                nameof(run));
        }

        var nonce = run.Slice(SealFormat.PageNonceOffset, SealFormat.NonceSize);
        nonces.Next(nonce);
        Span<byte> aad = stackalloc byte[PageAadSize];
        WritePageAad(aad, PageHeader.GetPageNumber(run), run);
        var body = run[PageHeader.Size..];
        aead.Encrypt(nonce, body, body, run.Slice(SealFormat.PageTagOffset, SealFormat.TagSize), aad);
        PageHeader.StampChecksum(run);
    }

    /// <summary>
    /// Opens <paramref name="sealedRun"/>, read from <paramref name="file"/> at <paramref name="offset"/>
    /// where page <paramref name="pageNumber"/> lives, into <paramref name="destination"/> (the same
    /// length; the same buffer is allowed): the plaintext image as it was sealed, its plaintext
    /// checksum stamped again (SL4). Bytes that fail any check are a CorruptionException (SL7).
    /// </summary>
    public void Open(ReadOnlySpan<byte> sealedRun, Span<byte> destination, long pageNumber, string file, long offset)
    {
        if (destination.Length != sealedRun.Length)
        {
            throw new ArgumentException($"The destination must be as long as the sealed run ({sealedRun.Length} bytes).", nameof(destination));
        }

        CheckStoredBytes(sealedRun, pageNumber, file, offset);
        Span<byte> aad = stackalloc byte[PageAadSize];
        WritePageAad(aad, pageNumber, sealedRun);
        if (!aead.TryDecrypt(sealedRun.Slice(SealFormat.PageNonceOffset, SealFormat.NonceSize), sealedRun[PageHeader.Size..],
                sealedRun.Slice(SealFormat.PageTagOffset, SealFormat.TagSize), destination[PageHeader.Size..], aad))
        {
            throw new CorruptionException(file, offset,
                $"page {pageNumber}: the seal does not verify (SL3): the page was changed after it was sealed, or sealed for another page or store, or under another key");
        }

        sealedRun[..SealFormat.PageNonceOffset].CopyTo(destination);
        destination[SealFormat.PageNonceOffset..PageHeader.Size].Clear();
        PageHeader.StampChecksum(destination);
    }

    /// <summary>
    /// Seals page-file block <paramref name="block"/> (store page <paramref name="pageNumber"/>, 8192
    /// bytes) in place and writes its nonce and tag (28 bytes) into <paramref name="nonceAndTag"/>, for its map entry.
    /// </summary>
    public void SealBlock(Span<byte> block, long pageNumber, Span<byte> nonceAndTag)
    {
        CheckBlockShape(block.Length, nonceAndTag.Length);
        var nonce = nonceAndTag[..SealFormat.NonceSize];
        nonces.Next(nonce);
        Span<byte> aad = stackalloc byte[BlockAadSize];
        WriteBlockAad(aad, pageNumber);
        aead.Encrypt(nonce, block, block, nonceAndTag[SealFormat.NonceSize..], aad);
    }

    /// <summary>Opens a sealed page-file block into <paramref name="destination"/> (8192 bytes; the same buffer is allowed), or throws CorruptionException (SL7).</summary>
    public void OpenBlock(ReadOnlySpan<byte> sealedBlock, ReadOnlySpan<byte> nonceAndTag, Span<byte> destination, long pageNumber, string file, long offset)
    {
        CheckBlockShape(sealedBlock.Length, nonceAndTag.Length);
        if (destination.Length != sealedBlock.Length)
        {
            throw new ArgumentException($"The destination must be {Constants.PageSize} bytes.", nameof(destination));
        }

        Span<byte> aad = stackalloc byte[BlockAadSize];
        WriteBlockAad(aad, pageNumber);
        if (!aead.TryDecrypt(nonceAndTag[..SealFormat.NonceSize], sealedBlock, nonceAndTag[SealFormat.NonceSize..], destination, aad))
        {
            throw new CorruptionException(file, offset,
                $"page-file block in page {pageNumber}: the seal does not verify (SL3): the block or its map entry was changed after it was sealed, or it was sealed for another page or store, or under another key");
        }
    }

    /// <summary>P1, P3, P4 and the reserved bytes, on the stored bytes, without the key (SL4, SL7).</summary>
    private static void CheckStoredBytes(ReadOnlySpan<byte> sealedRun, long pageNumber, string file, long offset)
    {
        if (sealedRun.Length < Constants.PageSize || sealedRun.Length % Constants.PageSize != 0)
        {
            throw new ArgumentException($"A sealed page or run is a whole number of {Constants.PageSize}-byte pages; got {sealedRun.Length} bytes.", nameof(sealedRun));
        }

        var claimed = PageHeader.GetPageNumber(sealedRun);
        if (claimed != pageNumber)
        {
            throw new CorruptionException(file, offset, $"page {pageNumber}: its header says page {claimed} (P1)");
        }

        var pages = 1;
        if ((PageHeader.GetFlags(sealedRun) & PageFlags.Overflow) != 0)
        {
            var size = PageHeader.GetOverflowSize(sealedRun);
            pages = size is >= 0 and <= Constants.MaxValueSize ? PageHeader.OverflowPageCount(size) : -1;
        }

        if ((long)pages * Constants.PageSize != sealedRun.Length)
        {
            throw new CorruptionException(file, offset,
                $"page {pageNumber}: its header describes {(pages < 0 ? "an impossible overflow size" : pages + " page(s)")}, the sealed run read is {sealedRun.Length / Constants.PageSize} (P3)");
        }

        if (PageHeader.ComputeChecksum(sealedRun) != PageHeader.GetChecksum(sealedRun))
        {
            throw new CorruptionException(file, offset,
                $"page {pageNumber}: the checksum of the sealed page does not match (P4, SL4): torn or damaged on disk");
        }

        if (sealedRun.Slice(SealFormat.PageReservedOffset, SealFormat.PageReservedSize).ContainsAnyExcept((byte)0))
        {
            throw new CorruptionException(file, offset, $"page {pageNumber}: the sealed page's reserved header bytes 52..63 are not zero (SL7)");
        }
    }

    private static void CheckBlockShape(int blockLength, int nonceAndTagLength)
    {
        if (blockLength != Constants.PageSize)
        {
            throw new ArgumentException($"A page-file block is {Constants.PageSize} bytes; got {blockLength}.");
        }

        if (nonceAndTagLength != SealFormat.BlockSealSize)
        {
            throw new ArgumentException($"A block's nonce and tag are {SealFormat.BlockSealSize} bytes; got {nonceAndTagLength}.");
        }
    }

    /// <summary>SL3 for a page: the expected page number, page-header bytes 12..23.</summary>
    private static void WritePageAad(Span<byte> aad, long pageNumber, ReadOnlySpan<byte> run)
    {
        BinaryPrimitives.WriteInt64LittleEndian(aad, pageNumber);
        run.Slice(SealFormat.PageAadFieldsOffset, SealFormat.PageAadFieldsSize).CopyTo(aad[sizeof(long)..]);
    }

    /// <summary>SL3 for a page-file block: its page number, the block domain byte.</summary>
    private static void WriteBlockAad(Span<byte> aad, long pageNumber)
    {
        BinaryPrimitives.WriteInt64LittleEndian(aad, pageNumber);
        aad[^1] = BlockDomain;
    }
}
