namespace Voron;

/// <summary>
/// Moving a CRC register past a whole number of 64-byte blocks of zeros, up to a page: what a
/// checksum kept up to date from a page's changed blocks needs (PageHeader.UpdatedChecksum).
/// </summary>
internal static partial class Crc32C
{
    /// <summary>Bytes per block of <see cref="ShiftByBlocks"/>.</summary>
    internal const int ZeroBlock = 64;

    // Index k: the shift by k blocks (index 0 unused: no shift).
    private static readonly ShiftBy[] BlockShifts = BuildBlockShifts();

    /// <summary><paramref name="crc"/> moved past <paramref name="blocks"/> * 64 zero bytes (1 to a page's worth).</summary>
    internal static uint ShiftByBlocks(uint crc, int blocks) => Shift(crc, BlockShifts[blocks]);

    private static ShiftBy[] BuildBlockShifts()
    {
        var shifts = new ShiftBy[Constants.PageSize / ZeroBlock];
        for (var k = 1; k < shifts.Length; k++)
        {
            shifts[k] = new ShiftBy(k * (long)ZeroBlock);
        }

        return shifts;
    }
}
