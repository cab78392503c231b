using System.Globalization;

namespace Voron;

/// <summary>What one flush of committed pages to the data file did.</summary>
/// <param name="UpToTransactionId">The data file now holds every transaction up to this one.</param>
/// <param name="Transactions">How many committed transactions this flush covered.</param>
/// <param name="Pages">Pages written, whole or only their changed 4 KiB halves (an overflow run counts each of its pages).</param>
/// <param name="Bytes">Bytes written to the data file: less than <see cref="Pages"/> times the page size when only changed halves were written.</param>
/// <param name="Seeks">Discontiguous runs written: one gathered write each.</param>
/// <param name="LeafPages">Written pages whose header says tree leaf.</param>
/// <param name="BranchPages">Written pages whose header says tree branch.</param>
/// <param name="OverflowPages">Written pages of overflow runs (every page of each run).</param>
/// <param name="FreeSpacePages">Written free-space pages (directory, bitmaps, pending chain).</param>
/// <param name="Duration">The flush's work: gathering, writing and syncing the pages, writing the header, releasing journals.</param>
public sealed record FlushStatistics(long UpToTransactionId, int Transactions, long Pages, long Bytes, int Seeks,
    long LeafPages = 0, long BranchPages = 0, long OverflowPages = 0, long FreeSpacePages = 0, TimeSpan Duration = default)
{
    /// <summary>
    /// The flush as one log line, in the shape of the original Voron's flush log:
    /// <c>Flush 1,154 with 159 pages - 1,272 kb writes and 2 seeks (107 leaves, 52 branches, 0 overflows)</c>,
    /// where 1,154 is <see cref="UpToTransactionId"/> and kb is <see cref="Bytes"/> / 1024.
    /// </summary>
    public string ToLogLine() => string.Format(CultureInfo.InvariantCulture,
        "Flush {0:N0} with {1:N0} pages - {2:N0} kb writes and {3:N0} seeks ({4:N0} leaves, {5:N0} branches, {6:N0} overflows)",
        UpToTransactionId, Pages, Bytes / 1024, Seeks, LeafPages, BranchPages, OverflowPages);
}
