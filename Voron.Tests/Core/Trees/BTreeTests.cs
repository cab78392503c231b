using Voron.Paging;
using Voron.Trees;

namespace Voron.Tests.Core.Trees;

public sealed class BTreeTests
{
    private readonly DictionaryPageAccess _store = new();

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"key-{i:D8}");

    private static byte[] Value(int i, int size)
    {
        var value = new byte[size];
        new Random(i).NextBytes(value);
        return value;
    }

    private BTree NewTree() => new(_store, default);

    private static byte[] Get(BTree tree, byte[] key) =>
        tree.TryGet(key, out var value) ? value.ToArray() : throw new InvalidOperationException($"key {Encoding.ASCII.GetString(key)} is missing");

    [Fact]
    public void TryGet_returns_false_when_the_tree_is_empty()
    {
        var tree = NewTree();

        Assert.False(tree.TryGet("a"u8, out _));
        Assert.Equal(default, tree.State);
    }

    [Fact]
    public void Put_then_TryGet_returns_the_value_and_counts_the_entry()
    {
        var tree = NewTree();

        tree.Put("apple"u8, "red"u8);
        tree.Put("banana"u8, "yellow"u8);

        Assert.True(tree.TryGet("apple"u8, out var apple));
        Assert.Equal("red"u8.ToArray(), apple.ToArray());
        Assert.Equal("yellow"u8.ToArray(), Get(tree, "banana"u8.ToArray()));
        Assert.False(tree.TryGet("cherry"u8, out _));
        Assert.Equal(new TreeState(tree.State.RootPage, 1, 2, 1, 0, 0), tree.State);
        _store.VerifyOwnsExactly(tree);
    }

    [Theory]
    [InlineData(3)]
    [InlineData(5)]
    [InlineData(500)]
    [InlineData(5000)]
    public void Put_replaces_the_value_when_the_key_exists(int newSize)
    {
        var tree = NewTree();
        tree.Put("k"u8, "old"u8);

        tree.Put("k"u8, Value(1, newSize));

        Assert.Equal(Value(1, newSize), Get(tree, "k"u8.ToArray()));
        Assert.Equal(1, tree.State.EntryCount);
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Delete_removes_the_key_and_returns_false_when_absent()
    {
        var tree = NewTree();
        tree.Put("a"u8, "1"u8);
        tree.Put("b"u8, "2"u8);

        Assert.True(tree.Delete("a"u8));
        Assert.False(tree.Delete("a"u8));
        Assert.False(tree.Delete("zzz"u8));

        Assert.False(tree.TryGet("a"u8, out _));
        Assert.Equal("2"u8.ToArray(), Get(tree, "b"u8.ToArray()));
        Assert.Equal(1, tree.State.EntryCount);
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Delete_of_the_last_key_frees_the_root_and_empties_the_state()
    {
        var tree = NewTree();
        tree.Put("only"u8, "one"u8);

        Assert.True(tree.Delete("only"u8));

        Assert.Equal(default, tree.State);
        Assert.Equal(0, _store.LivePages);
    }

    [Fact]
    public void Put_splits_to_several_levels_when_long_keys_share_long_prefixes()
    {
        // Separators cannot be shortened below the shared prefix, so branches hold about seven
        // nodes and the tree grows deep quickly.
        var tree = NewTree();
        var prefix = new string('p', 1000);
        var order = Enumerable.Range(0, 600).OrderBy(i => (i * 7919) % 600).ToArray();
        foreach (var i in order)
        {
            tree.Put(Encoding.ASCII.GetBytes($"{prefix}{i:D6}"), Value(i, 100));
        }

        Assert.True(tree.State.Depth >= 4, $"depth {tree.State.Depth}");
        Assert.Equal(600, tree.State.EntryCount);
        foreach (var i in order)
        {
            Assert.Equal(Value(i, 100), Get(tree, Encoding.ASCII.GetBytes($"{prefix}{i:D6}")));
        }

        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Delete_merges_down_to_an_empty_tree_when_every_key_is_deleted()
    {
        var tree = NewTree();
        for (var i = 0; i < 20_000; i++)
        {
            tree.Put(Key(i), Value(i, 40));
        }

        Assert.True(tree.State.Depth >= 2);
        var leavesAtFull = tree.State.LeafPages;
        for (var i = 0; i < 20_000; i++)
        {
            if (i % 5 != 0)
            {
                Assert.True(tree.Delete(Key(i)));
            }
        }

        // Every leaf fell to a fifth full, below the quarter that triggers merging (BT8).
        _store.VerifyOwnsExactly(tree);
        Assert.True(tree.State.LeafPages < leavesAtFull / 2, $"{tree.State.LeafPages} leaves of {leavesAtFull} after deleting four in five");
        for (var i = 0; i < 20_000; i += 5)
        {
            Assert.True(tree.Delete(Key(i)));
            if (i % 1001 == 0)
            {
                _store.VerifyOwnsExactly(tree);
            }
        }

        Assert.Equal(default, tree.State);
        Assert.Equal(0, _store.LivePages);
    }

    [Fact]
    public void Delete_splits_the_parent_when_a_rebalanced_leaf_needs_a_longer_separator()
    {
        // 1004-byte keys with 1000-byte values: four nodes fill a leaf and seven long
        // separators nearly fill the root. Leaf B starts with a key whose separator is the single
        // byte "B"; emptying B down to that key makes it share with the full leaf A, and the new
        // separator between two A keys is 1004 bytes, which no longer fits the root.
        static byte[] Long(char family, int i) => Encoding.ASCII.GetBytes($"{family}{new string(char.ToLowerInvariant(family), 1000)}{i:D3}");
        var tree = NewTree();
        for (var i = 0; i < 4; i++)
        {
            tree.Put(Long('A', i), Value(i, 1000));
        }

        tree.Put(Long('B', 0), Value(4, 1000));
        for (var i = 0; i < 28; i++)
        {
            tree.Put(Long('X', i), Value(5 + i, 1000));
        }

        Assert.Equal((2, 1, 9L), (tree.State.Depth, tree.State.BranchPages, tree.State.LeafPages));
        Assert.True(tree.Delete(Long('X', 0)));
        Assert.True(tree.Delete(Long('X', 1)));
        Assert.Equal((2, 1), (tree.State.Depth, tree.State.BranchPages));

        Assert.True(tree.Delete(Long('X', 2)));

        Assert.Equal((3, 3, 9L), (tree.State.Depth, tree.State.BranchPages, tree.State.LeafPages));
        _store.VerifyOwnsExactly(tree);
        Assert.Equal(Value(4, 1000), Get(tree, Long('B', 0)));
        Assert.Equal(Value(2, 1000), Get(tree, Long('A', 2)));
    }

    [Fact]
    public void Put_of_ascending_keys_leaves_full_leaves_behind()
    {
        var tree = NewTree();
        for (var i = 0; i < 10_000; i++)
        {
            tree.Put(Key(i), Value(i, 50));
        }

        // 12-byte keys, 50-byte values: 69-byte nodes plus a slot, 115 to a page.
        var perPage = TreePage.Capacity / (TreePage.LeafNodeHeaderSize + 12 + 50 + TreePage.SlotSize);
        Assert.Equal((10_000 + perPage - 1) / perPage, tree.State.LeafPages);
        _store.VerifyOwnsExactly(tree);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(2 * 1024)]
    [InlineData(100 * 1024)]
    [InlineData(3 * 1024 * 1024)]
    public void Put_stores_values_of_any_size_and_replacing_frees_the_overflow_run(int size)
    {
        var tree = NewTree();
        tree.Put("before"u8, "x"u8);
        tree.Put("big"u8, Value(7, size));
        tree.Put("later"u8, "y"u8);

        Assert.Equal(Value(7, size), Get(tree, "big"u8.ToArray()));
        var expectedRun = TreePageEditor.NeedsOverflow(3, size) ? PageHeader.OverflowPageCount(size) : 0;
        Assert.Equal(expectedRun, tree.State.OverflowPages);
        _store.VerifyOwnsExactly(tree);

        tree.Put("big"u8, "small"u8);
        Assert.Equal(0, tree.State.OverflowPages);
        Assert.Equal("small"u8.ToArray(), Get(tree, "big"u8.ToArray()));
        _store.VerifyOwnsExactly(tree);

        tree.Put("big"u8, Value(8, size));
        Assert.True(tree.Delete("big"u8));
        Assert.Equal(0, tree.State.OverflowPages);
        Assert.Equal(1, tree.State.LeafPages);
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Put_moves_a_value_to_an_overflow_run_exactly_past_the_inline_bound()
    {
        var tree = NewTree();
        var inlineMax = TreePage.MaxLeafNodeSize - TreePage.LeafNodeHeaderSize - 1;

        tree.Put("i"u8, Value(1, inlineMax));
        Assert.Equal(0, tree.State.OverflowPages);
        tree.Put("o"u8, Value(2, inlineMax + 1));
        Assert.Equal(1, tree.State.OverflowPages);

        Assert.Equal(Value(1, inlineMax), Get(tree, "i"u8.ToArray()));
        Assert.Equal(Value(2, inlineMax + 1), Get(tree, "o"u8.ToArray()));
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void Put_handles_max_size_keys_with_the_largest_inline_values()
    {
        var tree = NewTree();
        var valueSize = TreePage.MaxLeafNodeSize - TreePage.LeafNodeHeaderSize - Constants.MaxKeySize;
        var keys = Enumerable.Range(0, 300).Select(i =>
        {
            var key = Value(i, Constants.MaxKeySize);
            key[0] = (byte)(i % 3);
            return key;
        }).ToArray();

        // The value repeats the key (to the largest inline size, half a page: longer than the key).
        static byte[] ValueOf(byte[] key, int size) => Enumerable.Range(0, size).Select(i => key[i % key.Length]).ToArray();
        foreach (var key in keys)
        {
            tree.Put(key, ValueOf(key, valueSize));
        }

        Assert.Equal(0, tree.State.OverflowPages);
        foreach (var key in keys)
        {
            Assert.Equal(ValueOf(key, valueSize), Get(tree, key));
        }

        _store.VerifyOwnsExactly(tree);
        foreach (var key in keys)
        {
            Assert.True(tree.Delete(key));
        }

        Assert.Equal(0, _store.LivePages);
    }

    [Fact]
    public void Put_splits_a_full_page_of_small_entries_when_a_huge_entry_arrives_in_the_middle()
    {
        var tree = NewTree();
        for (var i = 0; i < 1000; i += 2)
        {
            tree.Put(Key(i), "v"u8);
        }

        var inline = TreePage.MaxLeafNodeSize - TreePage.LeafNodeHeaderSize - Constants.MaxKeySize;
        for (var i = 1; i < 1000; i += 50)
        {
            var key = new byte[Constants.MaxKeySize];
            Key(i).CopyTo(key, 0);
            tree.Put(key, Value(i, inline));
        }

        _store.VerifyOwnsExactly(tree);
        Assert.Equal(500 + 20, tree.State.EntryCount);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(Constants.MaxKeySize + 1)]
    public void Put_TryGet_and_Delete_throw_when_the_key_size_is_out_of_range(int size)
    {
        var tree = NewTree();
        var key = new byte[size];

        var put = Assert.Throws<ArgumentException>(() => tree.Put(key, "v"u8));
        Assert.Throws<ArgumentException>(() => tree.TryGet(key, out _));
        Assert.Throws<ArgumentException>(() => tree.Delete(key));

        Assert.Contains($"{size} bytes", put.Message, StringComparison.Ordinal);
        Assert.Contains($"{Constants.MaxKeySize}", put.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Mutations_throw_when_the_transaction_is_read_only()
    {
        var tree = NewTree();
        tree.Put("a"u8, "1"u8);
        _store.IsWritable = false;

        Assert.Throws<InvalidOperationException>(() => tree.Put("b"u8, "2"u8));
        Assert.Throws<InvalidOperationException>(() => tree.Delete("a"u8));
        Assert.Throws<InvalidOperationException>(tree.DeleteAll);
        Assert.Equal("1"u8.ToArray(), Get(tree, "a"u8.ToArray()));
    }

    [Fact]
    public void Put_accepts_a_key_and_value_that_point_into_the_trees_own_pages()
    {
        var tree = NewTree();
        for (var i = 0; i < 50; i++)
        {
            tree.Put(Key(i), Value(i, 20));
        }

        tree.Put("big"u8, Value(99, 30_000));
        _store.BeginTransaction();

        // Replacing moves nodes within the page the key and value spans point into; the first
        // change in a transaction also copies the page (and the test store poisons the old copy).
        var cursor = tree.OpenCursor();
        for (var i = 0; i < 50; i += 5)
        {
            Assert.True(cursor.Seek(Key(i)));
            tree.Put(cursor.Key, cursor.Value[..10]);
            Assert.True(tree.TryGet(Key(i + 1), out var neighbour));
            tree.Put(Key(i + 2), neighbour);
        }

        Assert.True(tree.TryGet("big"u8, out var big));
        tree.Put("big"u8, big);

        for (var i = 0; i < 50; i += 5)
        {
            Assert.Equal(Value(i, 20)[..10], Get(tree, Key(i)));
            Assert.Equal(Value(i + 1, 20), Get(tree, Key(i + 2)));
        }

        Assert.Equal(Value(99, 30_000), Get(tree, "big"u8.ToArray()));
        _store.VerifyOwnsExactly(tree);
    }

    [Fact]
    public void TryGet_and_cursor_moves_allocate_nothing()
    {
        var tree = NewTree();
        for (var i = 0; i < 5000; i++)
        {
            tree.Put(Key(i), Value(i, 30));
        }

        var cursor = tree.OpenCursor();
        var key = Key(2500);
        void Work()
        {
            for (var i = 0; i < 100; i++)
            {
                Assert.True(tree.TryGet(key, out _));
            }

            Assert.True(cursor.Seek(key));
            for (var i = 0; i < 300 && cursor.MoveNext(); i++)
            {
                _ = cursor.Key.Length + cursor.Value.Length;
            }

            Assert.True(cursor.SeekForPrevious(key));
            for (var i = 0; i < 300 && cursor.MovePrevious(); i++)
            {
                _ = cursor.Key.Length;
            }
        }

        Assert.Equal(0, Allocations.Fewest(Work));
    }

    [Fact]
    public void DeleteAll_frees_every_page_including_overflow_runs()
    {
        var tree = NewTree();
        for (var i = 0; i < 5000; i++)
        {
            tree.Put(Key(i), Value(i, i % 500 == 0 ? 10_000 : 30));
        }

        Assert.True(tree.State.OverflowPages > 0);
        tree.DeleteAll();

        Assert.Equal(default, tree.State);
        Assert.Equal(0, _store.LivePages);
        tree.Put("again"u8, "works"u8);
        Assert.Equal("works"u8.ToArray(), Get(tree, "again"u8.ToArray()));
    }

    [Fact]
    public void A_tree_reopened_from_its_state_sees_the_same_entries()
    {
        var tree = NewTree();
        for (var i = 0; i < 3000; i++)
        {
            tree.Put(Key(i), Value(i, 20));
        }

        _store.BeginTransaction();
        var reopened = new BTree(_store, tree.State);

        Assert.Equal(Value(1234, 20), Get(reopened, Key(1234)));
        _store.VerifyOwnsExactly(reopened);
    }
}
