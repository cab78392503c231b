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

        RefuseRawPagesWhenSealed();
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
        RefuseRawPagesWhenSealed();
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
        FreePages(pageNumber, 1);
    }

    /// <summary>
    /// A sealed store keeps no page-file blocks yet: they would reach the data file in plaintext
    /// (their seal belongs in their map entry, Sealing/SealFormat.cs). Refused before anything changes.
    /// </summary>
    private void RefuseRawPagesWhenSealed()
    {
        if (_seams.Pager.IsSealed)
        {
            throw new NotSupportedException(
                "This store is encrypted, and page files (the SQLite databases kept in the store) cannot be written to an encrypted store yet. " +
                "Keep SQL databases in a store opened without an encryption key.");
        }
    }
}
