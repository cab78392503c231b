namespace Voron.Transactions;

/// <summary>
/// Raw pages (T8): the blocks of page files, 8 KiB of caller bytes with no page header. Their
/// checksum is the caller's to keep (PageFiles/PageFileFormat.cs keeps it in the block's map
/// entry), so they are read with the checksum to check and never stamped at commit.
/// </summary>
internal sealed partial class LowLevelTransaction
{
    // Raw pages this write transaction holds a version of (created or modified): PrepareCommit
    // must not stamp a header checksum into them, and their previous version is read unvalidated.
    private HashSet<long>? _rawPages;

    private bool IsRaw(long pageNumber) => _rawPages != null && _rawPages.Contains(pageNumber);

    /// <summary>
    /// A raw page as this transaction sees it; from the data file it is checked against
    /// <paramref name="checksum"/> on first read (PF3). <paramref name="owner"/> names the page
    /// file for the corruption message.
    /// </summary>
    public ReadOnlySpan<byte> GetRawPage(long pageNumber, uint checksum, string owner)
    {
        if (_dirty != null && _dirty.TryGetValue(pageNumber, out var own))
        {
            return own;
        }

        if (_previous != null && _previous.TryGetValue(pageNumber, out var inFlight))
        {
            return inFlight;
        }

        if (_seams.PageTable.TryGet(pageNumber, Committed.TxId, out var committed))
        {
            return committed;
        }

        return _seams.Pager.ReadRawPage(pageNumber, checksum, owner);
    }

    /// <summary>
    /// A writable copy of a raw page, made once per transaction. With <paramref name="overwrite"/>
    /// the caller replaces every byte, so the current version is neither read nor copied (the
    /// journal diff still reads it at commit, unvalidated: a damaged old version makes a diff that
    /// recovery applies to the same damaged bytes, which the new checksum then catches).
    /// </summary>
    public Span<byte> ModifyRawPage(long pageNumber, uint checksum, string owner, bool overwrite)
    {
        var dirty = RequireWritable();
        if (dirty.TryGetValue(pageNumber, out var own))
        {
            return own;
        }

        var copy = _seams.PageTable.Buffers.Rent(); // see ModifyPage
        if (!overwrite)
        {
            GetRawPage(pageNumber, checksum, owner).CopyTo(copy);
        }

        SetDirty(dirty, pageNumber, copy); // counted in DirtyBytes like any page (M8)
        (_rawPages ??= []).Add(pageNumber);
        return copy;
    }

    /// <summary>Allocates one raw page, zero-filled; journaled as a diff against zeros like any new page.</summary>
    public Span<byte> AllocateRawPage(out long pageNumber)
    {
        var page = AllocatePages(1, out pageNumber);
        page.Clear(); // CreatePage wrote a header page number: a raw page is all caller bytes
        (_rawPages ??= []).Add(pageNumber);
        return page;
    }

    /// <summary>Frees a raw page; the page number may come back as any kind of page.</summary>
    public void FreeRawPage(long pageNumber)
    {
        RequireWritable();
        _rawPages?.Remove(pageNumber);
        _openedBlocks?.Remove(pageNumber);
        FreePages(pageNumber, 1);
    }

    // Sealed page-file blocks (PageFiles/PageFileFormat.cs, PF5, PF6): the plaintext of
    // each block this write transaction changed, for its own reads; the raw page holds the sealed
    // bytes, made again after every write.
    private Dictionary<long, byte[]>? _openedBlocks;

    /// <summary>Whether the store is sealed: its page files hold sealed blocks (PF2, PF5).</summary>
    public bool IsSealed => _seams.Pager.IsSealed;

    /// <summary>
    /// PF3, PF5: the plaintext of sealed block page <paramref name="pageNumber"/>: this transaction's
    /// own if it changed it, else its stored bytes (checked against <paramref name="checksum"/> from
    /// the data file) opened with <paramref name="nonceAndTag"/>, from the decrypted-page cache (OP1).
    /// </summary>
    public ReadOnlySpan<byte> GetSealedBlock(long pageNumber, uint checksum, scoped ReadOnlySpan<byte> nonceAndTag, string owner)
    {
        if (_openedBlocks != null && _openedBlocks.TryGetValue(pageNumber, out var own))
        {
            return own;
        }

        var stored = GetRawPage(pageNumber, checksum, owner);
        return _seams.Pager.SealedPages!.OpenBlock(pageNumber, stored, nonceAndTag, DataFilePath);
    }

    /// <summary>
    /// PF6: the plaintext of sealed block page <paramref name="pageNumber"/> to change (with
    /// <paramref name="overwrite"/> its current bytes are not read); call <see cref="SealBlock"/>
    /// once the change is made.
    /// </summary>
    public Span<byte> ModifySealedBlock(long pageNumber, uint checksum, scoped ReadOnlySpan<byte> nonceAndTag, string owner, bool overwrite)
    {
        RequireWritable();
        _openedBlocks ??= [];
        if (_openedBlocks.TryGetValue(pageNumber, out var own))
        {
            return own;
        }

        var plaintext = new byte[Constants.PageSize];
        if (!overwrite)
        {
            GetSealedBlock(pageNumber, checksum, nonceAndTag, owner).CopyTo(plaintext);
        }

        _openedBlocks[pageNumber] = plaintext;
        return plaintext;
    }

    /// <summary>A new sealed block (zeros until written); call <see cref="SealBlock"/> once it is.</summary>
    public Span<byte> AllocateSealedBlock(out long pageNumber)
    {
        AllocateRawPage(out pageNumber);
        var plaintext = new byte[Constants.PageSize];
        (_openedBlocks ??= [])[pageNumber] = plaintext;
        return plaintext;
    }

    /// <summary>
    /// PF6: seals the plaintext of block page <paramref name="pageNumber"/> (changed through
    /// <see cref="ModifySealedBlock"/> or <see cref="AllocateSealedBlock"/>) into its raw page,
    /// writes the nonce and tag into <paramref name="nonceAndTag"/> and returns the CRC32C of the
    /// sealed bytes (the entry's Checksum).
    /// </summary>
    public uint SealBlock(long pageNumber, Span<byte> nonceAndTag, string owner)
    {
        var plaintext = _openedBlocks![pageNumber];
        var target = ModifyRawPage(pageNumber, 0, owner, overwrite: true);
        plaintext.CopyTo(target);
        _seams.Pager.SealedPages!.SealBlock(target, pageNumber, nonceAndTag);
        return Crc32C.Compute(target);
    }
}
