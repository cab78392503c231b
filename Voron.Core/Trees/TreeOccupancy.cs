using System.Globalization;
using System.Text;

namespace Voron.Trees;

/// <summary>
/// How full one tree's pages are (<see cref="BTree.MeasureOccupancy"/>): pages by kind, the
/// bytes of slots and nodes in its leaves and branches, its overflow runs' value bytes, and a
/// histogram of leaf fill in tenths.
/// </summary>
internal sealed record TreeOccupancy(long LeafPages, long BranchPages, long OverflowRuns, long OverflowPages,
    long LeafUsedBytes, long BranchUsedBytes, long OverflowValueBytes, long[] LeafFillHistogram)
{
    /// <summary>Buckets of <see cref="LeafFillHistogram"/>: bucket i counts leaves filled [i/10, (i+1)/10) of their capacity; a full leaf counts in the last.</summary>
    public const int HistogramBuckets = 10;

    /// <summary>The leaves' slot and node bytes over their capacity (<see cref="TreePage.Capacity"/> each).</summary>
    public double LeafFill => LeafPages == 0 ? 0 : LeafUsedBytes / (double)(LeafPages * TreePage.Capacity);

    /// <summary>The branches' slot and node bytes over their capacity.</summary>
    public double BranchFill => BranchPages == 0 ? 0 : BranchUsedBytes / (double)(BranchPages * TreePage.Capacity);

    /// <summary>The histogram bucket of a leaf with <paramref name="usedBytes"/> of slots and nodes.</summary>
    public static int Bucket(int usedBytes) => Math.Clamp(usedBytes * HistogramBuckets / TreePage.Capacity, 0, HistogramBuckets - 1);

    /// <summary>One line for reports: pages, average fill and the leaf-fill histogram (leaves per tenth, emptiest first).</summary>
    public override string ToString()
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture,
            $"leaf pages {LeafPages:N0}, leaf fill {LeafFill:F3}, branch pages {BranchPages:N0}, branch fill {BranchFill:F3}, overflow runs {OverflowRuns:N0} ({OverflowPages:N0} pages); leaves by fill in tenths [");
        text.AppendJoin(' ', LeafFillHistogram);
        return text.Append(']').ToString();
    }
}
