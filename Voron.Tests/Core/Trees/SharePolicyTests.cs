using Voron.Trees;

namespace Voron.Tests.Core.Trees;

/// <summary>
/// BT12 in BTree.cs: a full leaf shares its nodes with its right sibling only when the transaction
/// already holds writable copies of both pages; otherwise it splits and leaves the sibling alone.
/// </summary>
public sealed class SharePolicyTests
{
    private const int ValueSize = 1_000; // seven or eight nodes fill a leaf

    private readonly DictionaryPageAccess _store = new();

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key-{i:D8}");

    private static byte[] Value(int i) => Enumerable.Repeat((byte)i, ValueSize).ToArray();

    /// <summary>
    /// Even keys in order: the first leaf fills (an append leaves a full page behind, BT11), the
    /// second holds a few. Returns the tree's state and the two leaves' page numbers.
    /// </summary>
    private (TreeState State, long Left, long Right, int Loaded) LoadTwoLeaves()
    {
        var tree = new BTree(_store, default);
        var i = 0;
        while (tree.State.LeafPages < 2 || CountOf(RightLeaf(tree.State)) < 3)
        {
            tree.Put(Key(2 * i), Value(2 * i));
            i++;
        }

        Assert.Equal(2, tree.State.Depth);
        Assert.Equal(2L, tree.State.LeafPages);
        return (tree.State, LeftLeaf(tree.State), RightLeaf(tree.State), i);
    }

    private long LeftLeaf(TreeState state) => Root(state).GetChild(0);

    private long RightLeaf(TreeState state) => Root(state).GetChild(1);

    private TreePage Root(TreeState state) => TreePage.Open(_store.GetPage(state.RootPage), state.RootPage, _store.DataFilePath);

    private int CountOf(long leaf) => TreePage.Open(_store.GetPage(leaf), leaf, _store.DataFilePath).Count;

    private byte[] FirstKeyOf(long leaf) => TreePage.Open(_store.GetPage(leaf), leaf, _store.DataFilePath).GetKey(0).ToArray();

    [Theory]
    [InlineData(false, false, false)]
    [InlineData(true, false, false)]
    [InlineData(false, true, false)]
    [InlineData(true, true, true)]
    public void A_full_leaf_shares_with_its_sibling_only_when_the_transaction_already_holds_both(bool touchLeft, bool touchRight, bool shares)
    {
        var (state, left, right, loaded) = LoadTwoLeaves();
        var leftCount = CountOf(left);
        var rightCount = CountOf(right);
        _store.BeginTransaction();

        // Same-size updates modify the pages in place: the transaction now holds them.
        var tree = new BTree(_store, state);
        if (touchLeft)
        {
            tree.Put(Key(0), Value(100));
        }

        if (touchRight)
        {
            tree.Put(Key(2 * (loaded - 1)), Value(101));
        }

        Assert.Equal((touchLeft, touchRight), (_store.HoldsWritableCopy(left), _store.HoldsWritableCopy(right)));
        var rightBefore = _store.RawPage(right).ToArray();

        tree.Put(Key(3), Value(3)); // into the full left leaf, not after the previous new key

        Assert.Equal(leftCount + rightCount + 1, CountOf(left) + CountOf(right) + (shares ? 0 : CountOf(RightLeaf(tree.State))));
        if (shares)
        {
            Assert.Equal(2L, tree.State.LeafPages);
            Assert.InRange(CountOf(left) - CountOf(right), -1, 1); // shared evenly (equal node sizes)
            Assert.True(CountOf(right) > rightCount);
            Assert.True(ByteArrayComparer.Instance.Compare(FirstKeyOf(right), Key(2 * (loaded - rightCount))) < 0);
        }
        else
        {
            Assert.Equal(3L, tree.State.LeafPages);
            Assert.Equal(rightCount, CountOf(right));
            Assert.Equal(rightBefore, _store.RawPage(right)); // the sibling was not rewritten
        }

        Assert.Equal(Value(3), tree.TryGet(Key(3), out var value) ? value.ToArray() : null);
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Random_puts_share_in_one_large_transaction_and_never_rewrite_clean_pages_in_small_ones()
    {
        var random = new Random(11);
        var keys = Enumerable.Range(0, 20_000).OrderBy(_ => random.Next()).ToArray();

        var (inOne, oneStore) = Load(keys, transactionLength: keys.Length);
        var (inSmall, smallStore) = Load(keys, transactionLength: 100);

        // A share is a Put that changes two or more existing pages and adds no leaf.
        Assert.True(oneStore.Shares > 100, $"one transaction: {oneStore.Shares} shares");
        Assert.Equal(0, smallStore.SharesOfCleanPages);
        Assert.True(smallStore.Shares < oneStore.Shares / 4, $"shares: {smallStore.Shares} in transactions of 100, {oneStore.Shares} in one");
        Assert.True(inOne.State.LeafPages < inSmall.State.LeafPages,
            $"one transaction: {inOne.State.LeafPages} leaves, transactions of 100: {inSmall.State.LeafPages}");
        Assert.Equal(inOne.State.EntryCount, inSmall.State.EntryCount);
    }

    private static (BTree Tree, RecordingPageAccess Store) Load(int[] keys, int transactionLength)
    {
        var inner = new DictionaryPageAccess();
        var store = new RecordingPageAccess(inner);
        var tree = new BTree(store, default);
        for (var n = 0; n < keys.Length; n++)
        {
            if (n % transactionLength == 0)
            {
                inner.BeginTransaction();
            }

            var leaves = tree.State.LeafPages;
            store.StartPut();
            tree.Put(BitConverter.GetBytes(keys[n]), new byte[100]);
            store.EndPut(addedLeaf: tree.State.LeafPages != leaves);
        }

        inner.VerifyOwnsExactly(tree);
        return (tree, store);
    }

    /// <summary>
    /// Counts the Puts that changed two or more existing leaves without adding one (shares), and
    /// those of them that changed a leaf the transaction did not hold before the Put.
    /// </summary>
    private sealed class RecordingPageAccess(DictionaryPageAccess inner) : IPageAccess
    {
        private readonly HashSet<long> _modifiedLeaves = [];
        private bool _touchedClean;

        public int Shares { get; private set; }

        public int SharesOfCleanPages { get; private set; }

        public bool IsWritable => inner.IsWritable;

        public string DataFilePath => inner.DataFilePath;

        public void StartPut()
        {
            _modifiedLeaves.Clear();
            _touchedClean = false;
        }

        public void EndPut(bool addedLeaf)
        {
            if (!addedLeaf && _modifiedLeaves.Count >= 2)
            {
                Shares++;
                SharesOfCleanPages += _touchedClean ? 1 : 0;
            }
        }

        public ReadOnlySpan<byte> GetPage(long pageNumber) => inner.GetPage(pageNumber);

        public bool IsMapped(ReadOnlySpan<byte> page, out object? keepAlive) => inner.IsMapped(page, out keepAlive);

        public Span<byte> ModifyPage(long pageNumber)
        {
            // A leaf's first modification in this Put tells whether the transaction held it before.
            if (TreePage.Open(inner.GetPage(pageNumber), pageNumber, DataFilePath, allowEmpty: true).IsLeaf && _modifiedLeaves.Add(pageNumber))
            {
                _touchedClean |= !inner.HoldsWritableCopy(pageNumber);
            }

            return inner.ModifyPage(pageNumber);
        }

        public bool HoldsWritableCopy(long pageNumber) => inner.HoldsWritableCopy(pageNumber);

        public Span<byte> AllocatePages(int pageCount, out long pageNumber) => inner.AllocatePages(pageCount, out pageNumber);

        public void FreePages(long pageNumber, int pageCount) => inner.FreePages(pageNumber, pageCount);
    }
}
