namespace Voron;

/// <summary>What one flush of committed pages to the data file did.</summary>
/// <param name="UpToTransactionId">The data file now holds every transaction up to this one.</param>
/// <param name="Transactions">How many committed transactions this flush covered.</param>
/// <param name="Pages">Pages written (an overflow run counts each of its pages).</param>
/// <param name="Bytes">Bytes written to the data file.</param>
/// <param name="Seeks">Discontiguous runs written: one gathered write each.</param>
public sealed record FlushStatistics(long UpToTransactionId, int Transactions, long Pages, long Bytes, int Seeks);
