using Voron.Paging;
using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>
/// The half-page inline limit (TreePage.cs: MaxLeafNodeSize, B6): values of 2-4 KiB stay in their
/// leaf instead of taking a whole 8 KiB overflow page, and runs written under the older
/// quarter-page limit still read, verify and are replaced normally.
/// </summary>
public sealed class InlineLimitTests
{
    private readonly DictionaryPageAccess _store = new();

    private static byte[] Value(int seed, int size)
    {
        var value = new byte[size];
        new Random(seed).NextBytes(value);
        return value;
    }

    private static byte[] Get(BTree tree, ReadOnlySpan<byte> key)
    {
        Assert.True(tree.TryGet(key, out var value));
        return value.ToArray();
    }

    [Fact]
    public void A_2500_byte_value_stays_in_its_leaf()
    {
        var tree = new BTree(_store, default);
        for (var i = 0; i < 40; i++)
        {
            tree.Put(BitConverter.GetBytes(i), Value(i, 2500));
        }

        Assert.Equal(0, tree.State.OverflowPages);
        Assert.Equal(40, tree.State.EntryCount);
        Assert.True(tree.State.LeafPages <= 20, $"two 2.5 KiB values or more per leaf, found {tree.State.LeafPages} leaves for 40");
        for (var i = 0; i < 40; i++)
        {
            Assert.Equal(Value(i, 2500), Get(tree, BitConverter.GetBytes(i)));
        }

        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Leaves_of_half_page_nodes_split_and_merge_in_any_order()
    {
        var tree = new BTree(_store, default);
        var random = new Random(24);
        var sizes = new Dictionary<int, int>();
        for (var step = 0; step < 3000; step++)
        {
            var key = random.Next(300);
            if (random.Next(4) == 0)
            {
                tree.Delete(BitConverter.GetBytes(key));
                sizes.Remove(key);
            }
            else
            {
                // Up to the largest inline node, with a few tiny values among them.
                var size = random.Next(5) == 0 ? random.Next(10) : random.Next(3000, TreePage.MaxLeafNodeSize - TreePage.LeafNodeHeaderSize - 4 + 1);
                tree.Put(BitConverter.GetBytes(key), Value(key + (step * 1000), size));
                sizes[key] = size;
            }
        }

        Assert.Equal(0, tree.State.OverflowPages);
        Assert.Equal(sizes.Count, tree.State.EntryCount);
        foreach (var (key, size) in sizes)
        {
            Assert.Equal(size, Get(tree, BitConverter.GetBytes(key)).Length);
        }

        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void A_run_an_older_build_wrote_for_a_2500_byte_value_verifies_and_is_replaced_inline()
    {
        var tree = LegacyRunTree(2500);
        _store.VerifyOwnsExactly(tree);
        Assert.Equal(Value(7, 5000).AsSpan(0, 2500).ToArray(), Get(tree, "old"u8));

        tree.Put("old"u8, Value(8, 2500));
        Assert.Equal(0, tree.State.OverflowPages);
        Assert.Equal(Value(8, 2500), Get(tree, "old"u8));
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void A_run_holding_a_value_small_enough_for_the_older_inline_limit_is_corrupt()
    {
        var tree = LegacyRunTree(1000);
        var error = Assert.Throws<CorruptionException>(() => _store.VerifyOwnsExactly(tree));
        Assert.Contains("BT7", error.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// A one-entry tree whose value lives in a one-page run although it is only
    /// <paramref name="valueSize"/> bytes, as a build with the quarter-page limit wrote a
    /// 2031..4062-byte node: written as a 5,000-byte run, then both sizes patched.
    /// </summary>
    private BTree LegacyRunTree(int valueSize)
    {
        var tree = new BTree(_store, default);
        tree.Put("old"u8, Value(7, 5000));
        Assert.Equal(1, tree.State.OverflowPages);
        var leaf = _store.RawPage(tree.State.RootPage);
        int node = BinaryPrimitives.ReadUInt16LittleEndian(leaf.AsSpan(PageHeader.Size));
        BinaryPrimitives.WriteInt32LittleEndian(leaf.AsSpan(node + TreePage.ValueSizeOffset), valueSize);
        var runPage = BinaryPrimitives.ReadInt64LittleEndian(leaf.AsSpan(node + TreePage.LeafNodeHeaderSize + 3));
        PageHeader.SetOverflowSize(_store.RawPage(runPage), valueSize);
        _store.BeginTransaction();
        return new BTree(_store, tree.State);
    }
}
