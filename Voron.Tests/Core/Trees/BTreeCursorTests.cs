using Voron.Trees;

namespace Voron.Tests.Core.Trees;

public sealed class BTreeCursorTests
{
    private readonly DictionaryPageAccess _store = new();

    /// <summary>Even numbers 0..1998 as "k0000".."k1998", enough for several leaves.</summary>
    private BTree EvenTree()
    {
        var tree = new BTree(_store, default);
        for (var i = 0; i < 2000; i += 2)
        {
            tree.Put(Key(i), Encoding.ASCII.GetBytes($"value of {i}"));
        }

        Assert.True(tree.State.Depth >= 2);
        return tree;
    }

    private static byte[] Key(int i) => Encoding.ASCII.GetBytes($"k{i:D4}");

    private static string Text(ReadOnlySpan<byte> bytes) => Encoding.ASCII.GetString(bytes);

    [Fact]
    public void Seeks_return_false_when_the_tree_is_empty()
    {
        var cursor = new BTree(_store, default).OpenCursor();

        Assert.False(cursor.SeekFirst());
        Assert.False(cursor.SeekLast());
        Assert.False(cursor.Seek("a"u8));
        Assert.False(cursor.SeekForPrevious("a"u8));
        Assert.False(cursor.MoveNext());
        Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
    }

    [Fact]
    public void MoveNext_visits_every_key_in_order_from_SeekFirst()
    {
        var cursor = EvenTree().OpenCursor();
        var seen = new List<string>();

        for (var more = cursor.SeekFirst(); more; more = cursor.MoveNext())
        {
            seen.Add(Text(cursor.Key));
            Assert.Equal($"value of {int.Parse(Text(cursor.Key)[1..])}", Text(cursor.Value));
        }

        Assert.Equal(Enumerable.Range(0, 1000).Select(i => Text(Key(i * 2))), seen);
        Assert.False(cursor.IsPositioned);
    }

    [Fact]
    public void MovePrevious_visits_every_key_in_reverse_from_SeekLast()
    {
        var cursor = EvenTree().OpenCursor();
        var seen = new List<string>();

        for (var more = cursor.SeekLast(); more; more = cursor.MovePrevious())
        {
            seen.Add(Text(cursor.Key));
        }

        Assert.Equal(Enumerable.Range(0, 1000).Reverse().Select(i => Text(Key(i * 2))), seen);
    }

    [Fact]
    public void Seek_finds_the_first_key_at_or_after_the_target()
    {
        var cursor = EvenTree().OpenCursor();

        for (var target = 0; target < 1999; target++)
        {
            Assert.True(cursor.Seek(Key(target)));
            Assert.Equal(Text(Key(target + (target % 2))), Text(cursor.Key));
        }

        Assert.True(cursor.Seek("a"u8));
        Assert.Equal("k0000", Text(cursor.Key));
        Assert.True(cursor.Seek([]));
        Assert.Equal("k0000", Text(cursor.Key));
        Assert.False(cursor.Seek(Key(1999)));
        Assert.False(cursor.Seek("z"u8));
    }

    [Fact]
    public void SeekForPrevious_finds_the_last_key_at_or_before_the_target()
    {
        var cursor = EvenTree().OpenCursor();

        for (var target = 0; target < 2100; target++)
        {
            Assert.True(cursor.SeekForPrevious(Key(target)));
            var expected = Math.Min(target - (target % 2), 1998);
            Assert.Equal(Text(Key(expected)), Text(cursor.Key));
        }

        Assert.True(cursor.SeekForPrevious("k0001"u8));
        Assert.Equal("k0000", Text(cursor.Key));
        Assert.False(cursor.SeekForPrevious("a"u8));
        Assert.False(cursor.SeekForPrevious("k"u8));
    }

    [Fact]
    public void Seek_then_MoveNext_scans_exactly_the_keys_with_a_prefix()
    {
        var cursor = EvenTree().OpenCursor();
        var prefix = "k12"u8.ToArray();
        var seen = new List<string>();

        for (var more = cursor.Seek(prefix); more && cursor.Key.StartsWith(prefix); more = cursor.MoveNext())
        {
            seen.Add(Text(cursor.Key));
        }

        Assert.Equal(Enumerable.Range(600, 50).Select(i => Text(Key(i * 2))), seen);
    }

    [Fact]
    public void Moves_cross_leaf_boundaries_in_both_directions()
    {
        var tree = EvenTree();
        var cursor = tree.OpenCursor();
        Assert.True(cursor.Seek(Key(1000)));

        for (var i = 0; i < 300; i++)
        {
            Assert.True(cursor.MoveNext());
        }

        Assert.Equal("k1600", Text(cursor.Key));
        for (var i = 0; i < 500; i++)
        {
            Assert.True(cursor.MovePrevious());
        }

        Assert.Equal("k0600", Text(cursor.Key));
    }

    [Fact]
    public void A_positioned_cursor_throws_when_the_tree_changed_and_works_again_after_a_seek()
    {
        var tree = EvenTree();
        var cursor = tree.OpenCursor();
        Assert.True(cursor.Seek(Key(100)));

        tree.Put(Key(101), "new"u8);

        var error = Assert.Throws<InvalidOperationException>(() => cursor.MoveNext());
        Assert.Contains("the tree changed", error.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
        Assert.Throws<InvalidOperationException>(() => cursor.Value.Length);
        Assert.Throws<InvalidOperationException>(() => cursor.MovePrevious());

        Assert.True(cursor.Seek(Key(100)));
        Assert.True(cursor.MoveNext());
        Assert.Equal("k0101", Text(cursor.Key));

        tree.Delete(Key(101));
        Assert.Throws<InvalidOperationException>(() => cursor.MoveNext());
        Assert.True(cursor.SeekFirst());
        tree.DeleteAll();
        Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
    }

    [Fact]
    public void Value_reads_overflow_runs()
    {
        var tree = new BTree(_store, default);
        var big = new byte[50_000];
        new Random(3).NextBytes(big);
        tree.Put("a"u8, "small"u8);
        tree.Put("b"u8, big);

        var cursor = tree.OpenCursor();
        Assert.True(cursor.SeekLast());

        Assert.Equal(big, cursor.Value.ToArray());
        Assert.True(cursor.MovePrevious());
        Assert.Equal("small"u8.ToArray(), cursor.Value.ToArray());
    }
}
