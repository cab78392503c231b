using Voron.Trees;

namespace Voron;

/// <summary>
/// A cursor over one tree: seek, then move forward or backward. <see cref="Key"/> and
/// <see cref="Value"/> are valid while positioned, until the transaction ends or the tree changes
/// (a change makes the next move throw <see cref="InvalidOperationException"/>).
/// </summary>
public sealed class TreeIterator
{
    private readonly ReadTransaction _transaction;
    private readonly BTreeCursor _cursor;

    internal TreeIterator(ReadTransaction transaction, BTreeCursor cursor)
    {
        _transaction = transaction;
        _cursor = cursor;
    }

    /// <summary>Moves to the smallest key; false when the tree is empty.</summary>
    public bool SeekFirst() => Check() && _cursor.SeekFirst();

    /// <summary>Moves to the largest key; false when the tree is empty.</summary>
    public bool SeekLast() => Check() && _cursor.SeekLast();

    /// <summary>Moves to the first key &gt;= <paramref name="key"/>; false when there is none.</summary>
    public bool Seek(ReadOnlySpan<byte> key) => Check() && _cursor.Seek(key);

    /// <summary>Moves to the last key &lt;= <paramref name="key"/>; false when there is none.</summary>
    public bool SeekForPrevious(ReadOnlySpan<byte> key) => Check() && _cursor.SeekForPrevious(key);

    /// <summary>Moves to the next key; false at the end.</summary>
    public bool MoveNext() => Check() && _cursor.MoveNext();

    /// <summary>Moves to the previous key; false at the start.</summary>
    public bool MovePrevious() => Check() && _cursor.MovePrevious();

    /// <summary>Moves to the first key that starts with <paramref name="prefix"/>; false when none does.</summary>
    public bool SeekPrefix(ReadOnlySpan<byte> prefix) => Seek(prefix) && Key.StartsWith(prefix);

    /// <summary>Moves to the last key that starts with <paramref name="prefix"/>; false when none does.</summary>
    public bool SeekLastWithPrefix(ReadOnlySpan<byte> prefix)
    {
        Check();
        // The last key with the prefix is the last key below the prefix's successor (the prefix
        // with trailing 0xFF bytes dropped and its last byte incremented); no successor = the end.
        var end = prefix.TrimEnd((byte)0xFF);
        var found = end.Length == 0 ? _cursor.SeekLast() : SeekBefore(end);
        return found && Key.StartsWith(prefix);
    }

    private bool SeekBefore(ReadOnlySpan<byte> trimmedPrefix)
    {
        Span<byte> successor = stackalloc byte[trimmedPrefix.Length];
        trimmedPrefix.CopyTo(successor);
        successor[^1]++;
        return _cursor.Seek(successor) ? _cursor.MovePrevious() : _cursor.SeekLast();
    }

    /// <summary>The current key.</summary>
    public ReadOnlySpan<byte> Key
    {
        get
        {
            Check();
            return _cursor.Key;
        }
    }

    /// <summary>The current value.</summary>
    public ReadOnlySpan<byte> Value
    {
        get
        {
            Check();
            return _cursor.Value;
        }
    }

    private bool Check()
    {
        _transaction.ThrowIfUnusable();
        return true;
    }
}
