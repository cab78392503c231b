namespace Voron.Allocation;

/// <summary>
/// Where the allocation policy left off, handed from each committed transaction to the next
/// (in memory only: after open the policy starts over). <paramref name="ActiveSection"/> is the
/// section allocations come from, -1 while they go to the end of the file;
/// <paramref name="ScanFrom"/> is where the search for the next section starts.
/// </summary>
internal readonly record struct SectionCursor(int ActiveSection, int ScanFrom)
{
    public static SectionCursor Start { get; } = new(-1, 0);
}
