using System.Buffers.Binary;
using Voron.Paging;

namespace Voron.Header;

// FORMAT: data file identity page, version 1 — page 0 of voron.data.
//
//   OFFSET SIZE NAME           MEANING
//   0      64   PageHeader     PageNumber 0, Flags = FileIdentity, checksum over the page
//   64     8    Magic          the ASCII bytes "VORONDAT"
//   72     4    FormatVersion  1
//   76     4    PageSize       8192
//   80     8112 Reserved       zero
//
// Valid iff the page passes the page rules P1..P4 (Paging/PageHeader.cs), the magic matches and
// the page size is 8192; another FormatVersion raises FormatVersionException naming the data file,
// the version found and 1. Page 0 is written once, when the store is created, and is never
// allocated to anything else (page number 0 means "no page" everywhere).
//
// Compatibility: FormatVersion is this page's own layout, not the store's format, and stays 1 in
// stores of format 1, 2 and 3 (the header file's FormatVersion, Header/HeaderFile.cs). Every
// build reads the header file before this page (StorageEnvironment.Open.cs, steps 2 and 3), so a
// build that does not know the store's format is stopped by the header's version; moving this one
// too would only mean rewriting page 0 of every older store, which is written once.

/// <summary>Builds and checks page 0 of the data file; see the FORMAT block above.</summary>
internal static class DataFileIdentity
{
    public const ulong Magic = 0x5441444E4F524F56; // the ASCII bytes "VORONDAT" read little-endian

    /// <summary>This page's own format version, not the store's (see Compatibility above).</summary>
    public const int FormatVersion = 1;

    public static byte[] Create()
    {
        var page = new byte[Constants.PageSize];
        PageHeader.SetFlags(page, PageFlags.FileIdentity);
        BinaryPrimitives.WriteUInt64LittleEndian(page.AsSpan(64), Magic);
        BinaryPrimitives.WriteInt32LittleEndian(page.AsSpan(72), FormatVersion);
        BinaryPrimitives.WriteInt32LittleEndian(page.AsSpan(76), Constants.PageSize);
        PageHeader.StampChecksum(page);
        return page;
    }

    public static void Validate(ReadOnlySpan<byte> page, string path)
    {
        if (page.Length < Constants.PageSize || BinaryPrimitives.ReadUInt64LittleEndian(page[64..]) != Magic)
        {
            throw new CorruptionException(path, 0, "page 0 is not a Voron data file identity page (bad magic): this is not a Voron data file, or it is damaged");
        }

        var version = BinaryPrimitives.ReadInt32LittleEndian(page[72..]);
        if (version != FormatVersion)
        {
            throw new FormatVersionException(path, version, FormatVersion);
        }

        if (PageHeader.GetChecksum(page) != PageHeader.ComputeChecksum(page[..Constants.PageSize]) ||
            PageHeader.GetFlags(page) != PageFlags.FileIdentity || BinaryPrimitives.ReadInt32LittleEndian(page[76..]) != Constants.PageSize)
        {
            throw new CorruptionException(path, 0, "the identity page fails its checksum or has the wrong flags or page size (rules P2/P4)");
        }
    }
}
