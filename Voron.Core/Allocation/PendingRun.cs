namespace Voron.Allocation;

/// <summary>One pending-free entry (FORMAT in FreeSpaceFormat.cs): a run of pages that transaction
/// <paramref name="FreedBy"/> freed and that no transaction may reuse yet.</summary>
internal readonly record struct PendingRun(long FreedBy, long FirstPage, int PageCount);
