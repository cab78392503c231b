namespace Voron.Paging;

/// <summary>
/// Raw pages (Transactions/LowLevelTransaction.cs T8): page-file blocks with no page header, so
/// P1–P4 do not apply; the caller supplies the checksum its map keeps (PageFiles/PageFileFormat.cs
/// PF3) and the page is checked against it the first time it is read (PG3's bit per page).
/// </summary>
internal sealed unsafe partial class Pager
{
    /// <summary>A raw page from the mapping, checked against <paramref name="checksum"/> on first read.</summary>
    public ReadOnlySpan<byte> ReadRawPage(long pageNumber, uint checksum, string owner)
    {
        var page = ReadRawPageUnverified(pageNumber);
        if (!IsVerified(pageNumber))
        {
            var actual = Crc32C.Compute(page);
            if (actual != checksum)
            {
                throw new CorruptionException(Path, pageNumber * Constants.PageSize,
                    $"rule PF3: raw page {pageNumber} of {owner} has checksum 0x{actual:X8}, its map entry says 0x{checksum:X8} (a torn or damaged page)");
            }

            MarkVerified(pageNumber);
        }

        return page;
    }

    /// <summary>A raw page from the mapping, unchecked (a version already checked, read again for its diff).</summary>
    public ReadOnlySpan<byte> ReadRawPageUnverified(long pageNumber)
    {
        if (pageNumber <= 0 || pageNumber >= PageCount)
        {
            throw new CorruptionException(Path, pageNumber * Constants.PageSize, $"rule PF2: raw page {pageNumber} is referenced but lies outside the data file ({PageCount} pages)");
        }

        return new ReadOnlySpan<byte>(Base + pageNumber * Constants.PageSize, Constants.PageSize);
    }
}
