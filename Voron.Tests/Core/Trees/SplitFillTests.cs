using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>How full leaf splits leave pages (BT11 in BTree.cs).</summary>
public sealed class SplitFillTests
{
    private readonly DictionaryPageAccess _store = new();

    /// <summary>Bytes the tree's nodes and slots take over its leaves' capacity (every value inline).</summary>
    private static double LeafFill(BTree tree, IEnumerable<(byte[] Key, int ValueSize)> entries) =>
        entries.Sum(e => (double)(TreePage.LeafNodeHeaderSize + e.Key.Length + e.ValueSize + TreePage.SlotSize)) /
        (tree.State.LeafPages * (double)TreePage.Capacity);

    [Fact]
    public void Ids_inserted_in_numeric_order_fill_their_leaves()
    {
        // "p/1000", "p/10000", "p/10001" ...: each run of new ids lands in the middle of the tree,
        // in ascending order, as a document store's generated ids do.
        var tree = new BTree(_store, default);
        var entries = new List<(byte[], int)>();
        for (var i = 0; i < 20_000; i++)
        {
            var key = Encoding.ASCII.GetBytes($"p/{i}");
            var value = new byte[300 + (i * 7 % 600)];
            tree.Put(key, value);
            entries.Add((key, value.Length));
        }

        var fill = LeafFill(tree, entries);
        Assert.True(fill >= 0.8, $"leaves are {fill:P1} full");
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Keys_in_random_order_share_with_their_sibling_before_splitting()
    {
        var tree = new BTree(_store, default);
        var entries = new List<(byte[], int)>();
        var random = new Random(11);
        foreach (var i in Enumerable.Range(0, 20_000).OrderBy(_ => random.Next()))
        {
            var key = BitConverter.GetBytes(i);
            tree.Put(key, new byte[100]);
            entries.Add((key, 100));
        }

        var fill = LeafFill(tree, entries);
        Assert.InRange(fill, 0.70, 0.85); // even splits alone give ln 2 ~ 69%; sharing with the right sibling first (BT12) ~72%
        _store.VerifyOwnsExactly(tree);
    }
}
