namespace Voron.Allocation.Policies;

/// <summary>
/// <see cref="AllocationPolicy.FirstFit"/>: the lowest free run that fits, wherever it is, else the
/// end of the file. Keeps no state. Fills holes early in the file, which scatters a flush's
/// pages across it: the baseline the section policy is measured against.
/// </summary>
internal sealed class FirstFitPolicy : IAllocationPolicy
{
    public SectionCursor Cursor => SectionCursor.Start;

    public long Place(ISectionView map, int count) => map.FindRun(0, map.SectionFree.Length, count);
}
