using Voron.Paging;
using Voron.Testing;
using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>The tree page format (TreePage.cs FORMAT block): layout and the B rules on read.</summary>
public sealed class TreePageTests(ITestOutputHelper output)
{
    private readonly DictionaryPageAccess _store = new();

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key-{i:D5}");

    /// <summary>A one-leaf tree holding key-00000..key-00009 with 8-byte values.</summary>
    private BTree SmallTree()
    {
        var tree = new BTree(_store, default);
        for (var i = 0; i < 10; i++)
        {
            tree.Put(Key(i), BitConverter.GetBytes((long)i));
        }

        _store.BeginTransaction();
        return tree;
    }

    private static int SlotOffset(byte[] page, int index) => BinaryPrimitives.ReadUInt16LittleEndian(page.AsSpan(PageHeader.Size + (2 * index)));

    [Fact]
    public void Format_constants_match_the_documented_layout()
    {
        Assert.Equal(8128, TreePage.Capacity);
        Assert.Equal(4062, TreePage.MaxLeafNodeSize);
        Assert.Equal(2030, TreePage.MinOverflowNodeSize);
        Assert.Equal(1035, TreePage.MaxBranchNodeSize);
        Assert.Equal(7, TreePage.LeafNodeHeaderSize);
        Assert.Equal(11, TreePage.BranchNodeHeaderSize);
        Assert.True(2 * (TreePage.MaxLeafNodeSize + TreePage.SlotSize) <= TreePage.Capacity, "B2: a leaf holds two maximum nodes");
        Assert.True(3 * (TreePage.MaxBranchNodeSize + TreePage.SlotSize) <= TreePage.Capacity, "B2: a branch holds three maximum keys");
    }

    [Fact]
    public void A_leaf_node_is_laid_out_as_documented()
    {
        var tree = new BTree(_store, default);
        tree.Put("abc"u8, "hello"u8);
        var page = _store.RawPage(tree.State.RootPage);

        Assert.Equal(PageFlags.Leaf, PageHeader.GetFlags(page));
        Assert.Equal(PageHeader.Size + 2, PageHeader.GetLower(page));
        var nodeSize = 7 + 3 + 5;
        Assert.Equal(Constants.PageSize - nodeSize, PageHeader.GetUpper(page));
        var node = page.AsSpan(SlotOffset(page, 0), nodeSize);
        Assert.Equal(3, BinaryPrimitives.ReadUInt16LittleEndian(node));
        Assert.Equal((byte)TreeNodeFlags.Inline, node[2]);
        Assert.Equal(5, BinaryPrimitives.ReadInt32LittleEndian(node[3..]));
        Assert.Equal("abchello"u8.ToArray(), node[7..].ToArray());
    }

    [Fact]
    public void An_overflow_node_and_its_run_are_laid_out_as_documented()
    {
        var tree = new BTree(_store, default);
        var value = new byte[10_000];
        value.AsSpan().Fill(0x5A);
        tree.Put("k"u8, value);
        var page = _store.RawPage(tree.State.RootPage);

        var node = page.AsSpan(SlotOffset(page, 0), 7 + 1 + 8);
        Assert.Equal((byte)TreeNodeFlags.Overflow, node[2]);
        Assert.Equal(10_000, BinaryPrimitives.ReadInt32LittleEndian(node[3..]));
        var runPage = BinaryPrimitives.ReadInt64LittleEndian(node[8..]);
        var run = _store.RawPage(runPage);
        Assert.Equal(2, run.Length / Constants.PageSize);
        Assert.Equal(PageFlags.Overflow, PageHeader.GetFlags(run));
        Assert.Equal(10_000, PageHeader.GetOverflowSize(run));
        Assert.Equal(value, run.AsSpan(PageHeader.Size, 10_000).ToArray());
    }

    [Fact]
    public void A_branch_starts_with_an_empty_key_and_holds_shortest_separators()
    {
        var tree = new BTree(_store, default);
        for (var i = 0; i < 1000; i++)
        {
            tree.Put(Key(i), new byte[50]);
        }

        var root = TreePage.Open(_store.GetPage(tree.State.RootPage), tree.State.RootPage, _store.DataFilePath);
        Assert.False(root.IsLeaf);
        Assert.Equal(0, root.GetKey(0).Length);
        for (var i = 1; i < root.Count; i++)
        {
            // Neighbouring keys "key-0NNNN" differ in their last digits only.
            Assert.True(root.GetKey(i).Length <= Key(0).Length);
            Assert.True(root.GetKey(i).StartsWith("key-"u8));
        }
    }

    [Fact]
    public void TryGet_throws_CorruptionException_naming_B1_when_the_flags_are_wrong()
    {
        var tree = SmallTree();
        _store.RawPage(tree.State.RootPage)[PageHeader.FlagsOffset] = (byte)PageFlags.Overflow;

        var error = Assert.Throws<CorruptionException>(() => tree.TryGet(Key(3), out _));

        Assert.Equal(_store.DataFilePath, error.File);
        Assert.Equal(tree.State.RootPage * Constants.PageSize, error.Offset);
        Assert.Contains("B1", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void TryGet_throws_CorruptionException_naming_B3_when_Lower_passes_Upper()
    {
        var tree = SmallTree();
        var page = _store.RawPage(tree.State.RootPage);
        PageHeader.SetLower(page, (ushort)(PageHeader.GetUpper(page) + 2));

        var error = Assert.Throws<CorruptionException>(() => tree.TryGet(Key(3), out _));

        Assert.Contains("B3", error.Reason, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(100)]
    [InlineData(Constants.PageSize - 1)]
    public void TryGet_throws_CorruptionException_naming_B4_when_a_slot_points_outside_the_nodes(int offset)
    {
        var tree = SmallTree();
        var page = _store.RawPage(tree.State.RootPage);
        for (var i = 0; i < 10; i++)
        {
            BinaryPrimitives.WriteUInt16LittleEndian(page.AsSpan(PageHeader.Size + (2 * i)), (ushort)offset);
        }

        var error = Assert.Throws<CorruptionException>(() => tree.TryGet(Key(3), out _));

        Assert.Contains("B4", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void TryGet_throws_CorruptionException_when_a_key_length_runs_past_the_page()
    {
        var tree = SmallTree();
        var page = _store.RawPage(tree.State.RootPage);
        BinaryPrimitives.WriteUInt16LittleEndian(page.AsSpan(SlotOffset(page, 4)), 1000);

        var error = Assert.Throws<CorruptionException>(() => tree.TryGet(Key(3), out _));

        Assert.Contains("B4", error.Reason, StringComparison.Ordinal);
    }

    /// <summary>
    /// Found by Faults/OnDiskFuzzTests (bytes from disk must fail as corruption): a leaf node with
    /// an empty key was read back as a key, which a caller iterating and looking it up then passed
    /// to Get: ArgumentException ("the key is 0 bytes") instead of CorruptionException. Fixed in
    /// TreePage.GetKey: only a branch's first node may have an empty key (B2).
    /// </summary>
    [Fact]
    public void Reading_a_leaf_node_with_an_empty_key_throws_CorruptionException_naming_B2()
    {
        var tree = SmallTree();
        var page = _store.RawPage(tree.State.RootPage);
        BinaryPrimitives.WriteUInt16LittleEndian(page.AsSpan(SlotOffset(page, 0)), 0);

        var error = Assert.Throws<CorruptionException>(() =>
        {
            var cursor = new BTreeCursor(tree);
            cursor.SeekFirst();
            return cursor.Key.Length;
        });

        Assert.Contains("B2", error.Reason, StringComparison.Ordinal);
    }

    /// <summary>
    /// Found by the VORON_SOAK=1000000 run of Faults/OnDiskFuzzTests: an inline leaf node whose
    /// value size is near 2^31 wrapped the node-size sum below the limit, and reading it threw
    /// ArgumentOutOfRangeException instead of CorruptionException. The sums are now taken in long.
    /// </summary>
    [Theory]
    [InlineData(int.MaxValue)]
    [InlineData(int.MaxValue - 7)]
    [InlineData(int.MaxValue - 20)]
    public void A_leaf_node_whose_value_size_is_near_2_to_the_31_is_corruption_on_read_and_verify(int valueSize)
    {
        var tree = SmallTree();
        var page = _store.RawPage(tree.State.RootPage);
        BinaryPrimitives.WriteInt32LittleEndian(page.AsSpan(SlotOffset(page, 3) + 3), valueSize);

        var read = Assert.Throws<CorruptionException>(() => tree.TryGet(Key(3), out _));
        var verify = Assert.Throws<CorruptionException>(() => tree.Verify((_, _) => { }));

        Assert.Contains("B2", read.Reason, StringComparison.Ordinal);
        Assert.Contains("B2", verify.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void TryGet_throws_CorruptionException_naming_B6_when_an_overflow_run_is_not_one()
    {
        var tree = new BTree(_store, default);
        tree.Put("k"u8, new byte[20_000]);
        var page = _store.RawPage(tree.State.RootPage);
        var runPage = BinaryPrimitives.ReadInt64LittleEndian(page.AsSpan(SlotOffset(page, 0) + 8));
        PageHeader.SetOverflowSize(_store.RawPage(runPage), 19_999);

        var error = Assert.Throws<CorruptionException>(() => tree.TryGet("k"u8, out _));

        Assert.Equal(runPage * Constants.PageSize, error.Offset);
        Assert.Contains("B6", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Verify_throws_CorruptionException_naming_B7_when_keys_are_out_of_order()
    {
        var tree = SmallTree();
        var page = _store.RawPage(tree.State.RootPage);
        // Make key 5 ("key-00005") sort after key 6 by bumping its first byte.
        page[SlotOffset(page, 5) + TreePage.LeafNodeHeaderSize] = (byte)'z';

        var error = Assert.Throws<CorruptionException>(() => tree.Verify((_, _) => { }));

        Assert.Contains("B7", error.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public void Verify_throws_when_the_state_counts_disagree_with_the_pages()
    {
        var tree = SmallTree();
        var wrong = new BTree(_store, tree.State with { EntryCount = 11 });

        var error = Assert.Throws<InvalidOperationException>(() => wrong.Verify((_, _) => { }));

        Assert.Contains("BT5", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Descent_throws_CorruptionException_naming_BT2_when_the_depth_is_wrong()
    {
        var tree = SmallTree();
        var wrong = new BTree(_store, tree.State with { Depth = 2 });

        var error = Assert.Throws<CorruptionException>(() => wrong.TryGet(Key(1), out _));

        Assert.Contains("BT2", error.Reason, StringComparison.Ordinal);
    }
    /// <summary>
    /// The searches' key comparison (TreePage.CompareKeys, an eight-byte fast path) orders keys as
    /// SequenceCompareTo does, for random keys of 0–20 bytes that often share a prefix, equal
    /// keys, and keys that are prefixes of each other.
    /// </summary>
    [Fact]
    public void CompareKeys_orders_keys_as_SequenceCompareTo_does()
    {
        var seed = TestSeed.Next(output, nameof(CompareKeys_orders_keys_as_SequenceCompareTo_does));
        var random = new Random(seed);
        var prefix = new byte[12];
        random.NextBytes(prefix);
        for (var i = 0; i < 200_000; i++)
        {
            var left = NewKey(random, prefix);
            var right = random.Next(10) == 0 ? (byte[])left.Clone() : random.Next(10) == 0 ? left[..random.Next(left.Length + 1)] : NewKey(random, prefix);
            var expected = Math.Sign(left.AsSpan().SequenceCompareTo(right));
            Assert.True(expected == Math.Sign(TreePage.CompareKeys(left, right)),
                $"seed {seed}: {Convert.ToHexString(left)} vs {Convert.ToHexString(right)}");
        }

        static byte[] NewKey(Random random, byte[] prefix)
        {
            var key = new byte[random.Next(21)];
            random.NextBytes(key);
            prefix.AsSpan(0, Math.Min(key.Length, random.Next(prefix.Length + 1))).CopyTo(key);
            if (key.Length > 0 && random.Next(4) == 0)
            {
                key[random.Next(key.Length)] = (byte)(random.Next(2) == 0 ? 0 : 0xFF);
            }

            return key;
        }
    }
}
