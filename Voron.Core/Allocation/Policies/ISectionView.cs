namespace Voron.Allocation.Policies;

/// <summary>What an allocation policy sees of free space: per-section counts and a run search.</summary>
internal interface ISectionView
{
    /// <summary>Free pages of each section that has a bitmap; later sections have none.</summary>
    ReadOnlySpan<ushort> SectionFree { get; }

    /// <summary>Free pages in the whole file (pending frees not included).</summary>
    long FreePages { get; }

    /// <summary>The end of allocation: the file's pages in use or free lie below it.</summary>
    long NextPageNumber { get; }

    /// <summary>
    /// The first page of the lowest run of <paramref name="count"/> free pages within sections
    /// [<paramref name="firstSection"/>, <paramref name="firstSection"/> + <paramref name="sections"/>),
    /// or -1. A run may span sections but not bitmap pages (123 sections).
    /// </summary>
    long FindRun(int firstSection, int sections, int count);
}
