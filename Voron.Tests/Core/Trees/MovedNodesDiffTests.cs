using Voron.Paging;
using Voron.Trees;
using static Voron.Tests.Core.Journal.Diff.DiffCheck;

namespace Voron.Tests.Core.Trees;

/// <summary>
/// A split or a share (BT12) journals what moved: the nodes that leave a leaf leave holes (B8 in
/// TreePage.cs) instead of the leaf being rewritten, so the diff of each page against its version
/// at the start of the transaction holds the moved bodies, the slot arrays and the headers.
/// </summary>
/// <remarks>
/// Regression: a split rewrote the left leaf in key order and a share rewrote both leaves, so the
/// kept bodies moved and nearly every byte of both pages was in their diffs (85% of a random
/// put's diff bytes in docs/results/2026-11-27-core-gaps.md). Fixed by removing the moved nodes
/// without compacting (TreePageEditor.RemoveNodesLeavingHoles) and inserting into holes.
/// </remarks>
public sealed class MovedNodesDiffTests(ITestOutputHelper output)
{
    private readonly DictionaryPageAccess _store = new();

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key-{i:D8}");

    private static byte[] Value(int i, int size) => Enumerable.Range(0, size).Select(b => (byte)(i + (b * 7))).ToArray();

    private static int DiffBytes(byte[] before, byte[] after) => Compute(before, after) is { } diff ? RoundTrip(before, after).Length : after.Length;

    [Fact]
    public void A_split_leaves_the_kept_bodies_of_the_left_leaf_in_place()
    {
        // Eight 900-byte values fill a leaf; out of key order, so the bodies lie in no key order.
        const int size = 900;
        var tree = new BTree(_store, default);
        foreach (var i in new[] { 50, 10, 70, 30, 0, 60, 20, 40 })
        {
            tree.Put(Key(i), Value(i, size));
        }

        Assert.Equal(1L, tree.State.LeafPages);
        var leaf = tree.State.RootPage;
        _store.BeginTransaction();
        var before = _store.RawPage(leaf).ToArray();

        tree = new BTree(_store, tree.State);
        tree.Put(Key(65), Value(65, size)); // near the top: the even cut sends it right

        Assert.Equal(2L, tree.State.LeafPages);
        Assert.Equal(leaf, TreePage.Open(_store.GetPage(tree.State.RootPage), tree.State.RootPage, _store.DataFilePath).GetChild(0));
        var diff = DiffBytes(before, _store.RawPage(leaf));
        output.WriteLine($"left leaf of the split: {diff} diff bytes");
        Assert.True(diff < 64, $"the left leaf's diff is {diff} bytes; only its header should change");
        Assert.True(TreePage.Open(_store.GetPage(leaf), leaf, _store.DataFilePath).Holes > 0, "the moved nodes left holes");
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void A_share_journals_the_moved_nodes_not_two_rewritten_leaves()
    {
        // Even keys in order: an append leaves the first leaf full (BT11) and starts a second.
        const int size = 1_000;
        var tree = new BTree(_store, default);
        var loaded = 0;
        while (tree.State.LeafPages < 2 || CountOf(Child(tree.State, 1)) < 3)
        {
            tree.Put(Key(2 * loaded), Value(loaded, size));
            loaded++;
        }

        var (left, right) = (Child(tree.State, 0), Child(tree.State, 1));
        var rightCount = CountOf(right);

        // Same-size updates hold both leaves in the transaction, so the next full leaf shares (BT12).
        _store.BeginTransaction();
        tree = new BTree(_store, tree.State);
        tree.Put(Key(0), Value(100, size));
        tree.Put(Key(2 * (loaded - 1)), Value(101, size));
        var (leftBefore, rightBefore) = (_store.RawPage(left).ToArray(), _store.RawPage(right).ToArray());

        tree.Put(Key(3), Value(3, size));

        Assert.Equal(2L, tree.State.LeafPages);
        var moved = CountOf(right) - rightCount;
        var diff = DiffBytes(leftBefore, _store.RawPage(left)) + DiffBytes(rightBefore, _store.RawPage(right));
        var movedBytes = (moved + 1) * (TreePage.LeafNodeHeaderSize + Key(0).Length + size); // the moved nodes and the new one
        output.WriteLine($"share: {moved} nodes moved, {diff} diff bytes for {movedBytes} bytes of nodes");
        Assert.True(moved >= 2, $"{moved} nodes moved");
        Assert.True(diff < movedBytes + 256, $"the two leaves' diffs are {diff} bytes for {movedBytes} bytes of moved and new nodes");
        Assert.Equal(Value(3, size), tree.TryGet(Key(3), out var value) ? value.ToArray() : null);
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void An_insert_takes_a_hole_that_fits_and_compacts_the_leaf_when_none_does()
    {
        var page = new byte[Constants.PageSize];
        PageHeader.SetPageNumber(page, 7);
        TreePageEditor.Initialize(page, PageFlags.Leaf);
        const int header = TreePage.LeafNodeHeaderSize + 12; // a node's bytes besides its value (12-byte keys)
        byte[][] keys = [.. Enumerable.Range(0, 6).Select(Key)];
        int[] sizes = [1_000, 1_500, 1_000, 700, 1_000, 1_200];
        var written = new List<int>();
        foreach (var i in new[] { 3, 4, 0, 1, 2, 5 }) // bodies go down the page in this order
        {
            var value = Value(i, sizes[i]);
            var slot = written.Count(w => w < i);
            written.Add(i);
            TreePageEditor.WriteLeafNode(TreePageEditor.InsertNode(page, slot, TreePageEditor.LeafNodeSize(keys[i].Length, value.Length), "test"), keys[i], value, 0);
        }

        // Nodes 3..5 leave: 3 and 4 were written first (at the page end) and leave holes; 5 was
        // written last, so its body was lowest and its bytes join the gap.
        TreePageEditor.RemoveNodesLeavingHoles(page, 3, 6, "test");
        var view = TreePage.Open(page, 7, "test");
        Assert.Equal(3, view.Count);
        Assert.Equal(header + 700 + header + 1_000, view.Holes);
        Assert.Equal((3 * header) + 1_000 + 1_500 + 1_000 + (3 * TreePage.SlotSize), view.UsedBytes);

        // Fill the gap, then a node that fits only a hole, then one that fits no hole.
        var next = 10;
        while (PageHeader.GetUpper(page) - PageHeader.GetLower(page) >= 700)
        {
            Put(page, next++, 600);
        }

        var upper = PageHeader.GetUpper(page);
        Put(page, next++, 990); // the 1,000-byte hole: the smallest that fits
        Assert.Equal(upper, PageHeader.GetUpper(page));
        Assert.Equal(header + 700 + 10, PageHeader.GetHoles(page));

        var free = TreePage.Capacity - TreePage.Open(page, 7, "test").UsedBytes;
        Put(page, next, free - TreePage.SlotSize - TreePage.LeafNodeHeaderSize - keys[0].Length); // fits only the gap and holes together
        Assert.Equal(0, PageHeader.GetHoles(page));
        Assert.Equal(PageHeader.GetLower(page), PageHeader.GetUpper(page));

        view = TreePage.Open(page, 7, "test");
        for (var i = 0; i < 3; i++)
        {
            Assert.Equal(keys[i], view.GetKey(i).ToArray());
            Assert.Equal(Value(i, sizes[i]), view.GetValueField(i, out _, out _).ToArray());
        }

        Assert.Equal(Value(10, 600), view.GetValueField(3, out _, out _).ToArray());
        Assert.Equal(Value(next, free - TreePage.SlotSize - TreePage.LeafNodeHeaderSize - keys[0].Length), view.GetValueField(view.Count - 1, out _, out _).ToArray());

        static void Put(byte[] page, int i, int valueSize)
        {
            var key = Key(i);
            var value = Value(i, valueSize);
            var nodeSize = TreePageEditor.LeafNodeSize(key.Length, value.Length);
            Assert.True(TreePageEditor.Fits(page, nodeSize));
            TreePageEditor.WriteLeafNode(TreePageEditor.InsertNode(page, TreePageEditor.Count(page), nodeSize, "test"), key, value, 0);
        }
    }

    [Fact]
    public void A_holes_count_that_disagrees_with_the_bodies_is_reported_as_corruption()
    {
        var tree = new BTree(_store, default);
        foreach (var i in new[] { 50, 10, 70, 30, 0, 60, 20, 40, 65 })
        {
            tree.Put(Key(i), Value(i, 900));
        }

        var leaf = Child(tree.State, 0);
        var holes = PageHeader.GetHoles(_store.RawPage(leaf));
        Assert.True(holes > 0);
        PageHeader.SetHoles(_store.RawPage(leaf), (ushort)(holes - 1));

        var error = Assert.Throws<CorruptionException>(() => tree.Verify((_, _) => { }));
        Assert.Contains("B8", error.Message);
        output.WriteLine(error.Message);

        // An insert too big for the free gap looks for a hole, and checks the same rule first.
        _store.BeginTransaction();
        tree = new BTree(_store, tree.State);
        var gap = PageHeader.GetUpper(_store.RawPage(leaf)) - PageHeader.GetLower(_store.RawPage(leaf));
        error = Assert.Throws<CorruptionException>(() => tree.Put(Key(5), Value(5, gap - TreePage.LeafNodeHeaderSize - 12)));
        Assert.Contains("B8", error.Message);
    }

    [Fact]
    public void A_delete_leaves_a_hole_so_the_leaf_diff_is_its_header_and_slots()
    {
        // Regression: a removal slid every body below the removed one up the page, so a delete
        // (or a put that replaces a value by one of another size) journaled those bodies again;
        // the `update` journal workload grew by 1.2% when splits started leaving holes. Fixed by
        // leaving the removed body as a hole (TreePageEditor.RemoveNode).
        const int size = 900;
        var tree = new BTree(_store, default);
        foreach (var i in new[] { 50, 10, 70, 30, 0, 60, 20, 40 })
        {
            tree.Put(Key(i), Value(i, size));
        }

        var leaf = tree.State.RootPage;
        _store.BeginTransaction();
        var before = _store.RawPage(leaf).ToArray();
        tree = new BTree(_store, tree.State);
        Assert.True(tree.Delete(Key(50))); // written first: the highest body, six bodies below it

        var diff = DiffBytes(before, _store.RawPage(leaf));
        output.WriteLine($"delete: {diff} diff bytes");
        Assert.True(diff < 64, $"the leaf's diff is {diff} bytes; only its header and slots should change");
        Assert.Equal(TreePage.LeafNodeHeaderSize + Key(0).Length + size, TreePage.Open(_store.GetPage(leaf), leaf, _store.DataFilePath).Holes);
        Assert.False(tree.TryGet(Key(50), out _));
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void A_value_replaced_by_one_of_another_size_journals_the_new_body_not_the_bodies_below_the_old()
    {
        const int size = 900;
        var tree = new BTree(_store, default);
        foreach (var i in new[] { 50, 10, 70, 30, 0, 60, 20 })
        {
            tree.Put(Key(i), Value(i, size));
        }

        var leaf = tree.State.RootPage;
        _store.BeginTransaction();
        var before = _store.RawPage(leaf).ToArray();
        tree = new BTree(_store, tree.State);
        tree.Put(Key(50), Value(51, size - 100));

        var diff = DiffBytes(before, _store.RawPage(leaf));
        output.WriteLine($"resize: {diff} diff bytes for a {size - 100}-byte value");
        Assert.True(diff < size - 100 + 128, $"the leaf's diff is {diff} bytes for one new {size - 100}-byte value");
        Assert.Equal(Value(51, size - 100), tree.TryGet(Key(50), out var value) ? value.ToArray() : null);
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Random_removals_and_inserts_keep_the_bodies_and_holes_exact_and_diff_only_what_changed()
    {
        // Property: on one leaf, any sequence of removals (the node's body becomes a hole, or
        // joins the gap when lowest) and inserts (gap, smallest hole, or compaction) keeps B8
        // exact and every node readable, and a removal changes only the header and slot array.
        var seed = TestSeed.Next(output, nameof(Random_removals_and_inserts_keep_the_bodies_and_holes_exact_and_diff_only_what_changed));
        var random = new Random(seed);
        for (var round = 0; round < 200; round++)
        {
            var page = new byte[Constants.PageSize];
            PageHeader.SetPageNumber(page, 7);
            TreePageEditor.Initialize(page, PageFlags.Leaf);
            var model = new SortedDictionary<int, byte[]>();
            for (var op = 0; op < 300; op++)
            {
                if (model.Count > 0 && random.Next(2) == 0)
                {
                    var key = model.Keys.ElementAt(random.Next(model.Count));
                    var index = model.Keys.TakeWhile(k => k < key).Count();
                    var before = (byte[])page.Clone();
                    var nodeSize = TreePage.Open(page, 7, "test").GetNode(index).Length;
                    TreePageEditor.RemoveNode(page, index, nodeSize, "test");
                    model.Remove(key);
                    var slotsEnd = PageHeader.GetLower(before);
                    for (var b = slotsEnd; b < Constants.PageSize; b++)
                    {
                        Assert.True(before[b] == page[b], $"seed {seed} round {round} op {op}: removing node {index} changed byte {b}, past the slot array");
                    }
                }
                else
                {
                    var key = random.Next(10_000);
                    if (model.ContainsKey(key))
                    {
                        continue;
                    }

                    var value = Value(key, random.Next(3) == 0 ? 300 : random.Next(1, 1_200));
                    var nodeSize = TreePageEditor.LeafNodeSize(Key(key).Length, value.Length);
                    if (!TreePageEditor.Fits(page, nodeSize))
                    {
                        continue;
                    }

                    var index = model.Keys.TakeWhile(k => k < key).Count();
                    TreePageEditor.WriteLeafNode(TreePageEditor.InsertNode(page, index, nodeSize, "test"), Key(key), value, 0);
                    model.Add(key, value);
                }

                CheckPage(page, model, $"seed {seed} round {round} op {op}");
            }
        }
    }

    /// <summary>Every node is the model's, in order; bodies do not overlap and cover Upper..8192 but Holes bytes (B8).</summary>
    private static void CheckPage(byte[] page, SortedDictionary<int, byte[]> model, string context)
    {
        var count = TreePageEditor.Count(page);
        Assert.True(count == model.Count, $"{context}: {count} nodes, the model has {model.Count}");
        int upper = PageHeader.GetUpper(page);
        var bodies = new List<(int Offset, int Length)>();
        var index = 0;
        foreach (var (key, value) in model)
        {
            var offset = BinaryPrimitives.ReadUInt16LittleEndian(page.AsSpan(PageHeader.Size + (index * TreePage.SlotSize)));
            var length = TreePageEditor.LeafNodeSize(Key(key).Length, value.Length);
            bodies.Add((offset, length));
            var node = page.AsSpan(offset, length);
            Assert.True(node[TreePage.LeafNodeHeaderSize..(TreePage.LeafNodeHeaderSize + Key(key).Length)].SequenceEqual(Key(key)), $"{context}: node {index}'s key");
            Assert.True(node[(TreePage.LeafNodeHeaderSize + Key(key).Length)..].SequenceEqual(value), $"{context}: node {index}'s value");
            index++;
        }

        bodies.Sort();
        var at = upper;
        var holes = 0;
        Assert.True(bodies.Count == 0 ? upper == Constants.PageSize : bodies[0].Offset == upper, $"{context}: Upper {upper} is not the lowest body");
        foreach (var (offset, length) in bodies)
        {
            Assert.True(offset >= at, $"{context}: the body at {offset} overlaps the one before it");
            holes += offset - at;
            at = offset + length;
        }

        holes += Constants.PageSize - at;
        Assert.True(holes == PageHeader.GetHoles(page), $"{context}: {holes} bytes no body covers, the header says {PageHeader.GetHoles(page)}");
    }

    private long Child(TreeState state, int index) =>
        TreePage.Open(_store.GetPage(state.RootPage), state.RootPage, _store.DataFilePath).GetChild(index);

    private int CountOf(long leaf) => TreePage.Open(_store.GetPage(leaf), leaf, _store.DataFilePath).Count;
}
