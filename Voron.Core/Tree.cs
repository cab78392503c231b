using System.Buffers;
using Voron.Trees;

namespace Voron;

/// <summary>
/// A named, ordered map from byte-string keys (1 to <see cref="Constants.MaxKeySize"/> bytes,
/// compared as unsigned bytes) to values of any size, seen through one transaction.
/// </summary>
/// <remarks>
/// Spans returned by reads point into the store's pages: they are valid until the transaction
/// ends, and in a write transaction only until the next change to the tree, and they cannot
/// cross an await. Copy what you keep: <see cref="Get"/> (a new array),
/// <see cref="TryGet(ReadOnlySpan{byte}, IBufferWriter{byte})"/> (into memory you give) or
/// <see cref="GetLease"/> (pooled memory you dispose).
/// </remarks>
public sealed class Tree
{
    private readonly ReadTransaction _transaction;
    private readonly BTree _tree;

    internal Tree(ReadTransaction transaction, string name, BTree tree)
    {
        _transaction = transaction;
        Name = name;
        _tree = tree;
    }

    /// <summary>The tree's name in the store.</summary>
    public string Name { get; }

    /// <summary>The number of keys.</summary>
    public long Count
    {
        get
        {
            _transaction.ThrowIfUnusable();
            return _tree.State.EntryCount;
        }
    }

    /// <summary>Reads a value; the span is valid as the remarks say.</summary>
    public bool TryGet(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        _transaction.ThrowIfUnusable();
        return _tree.TryGet(key, out value);
    }

    /// <summary>Reads a value into a new array, or null when the key is absent.</summary>
    public byte[]? Get(ReadOnlySpan<byte> key) => TryGet(key, out var value) ? value.ToArray() : null;

    /// <summary>
    /// Copies a value into <paramref name="destination"/> (an <see cref="ArrayBufferWriter{T}"/>,
    /// a pipe writer, a pooled buffer of your own); false, and nothing written, when the key is
    /// absent. What is written outlives the transaction and may cross awaits.
    /// </summary>
    public bool TryGet(ReadOnlySpan<byte> key, IBufferWriter<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(destination);
        if (!TryGet(key, out var value))
        {
            return false;
        }

        destination.Write(value);
        return true;
    }

    /// <summary>
    /// Copies a value into memory rented from the shared array pool, or returns null when the key
    /// is absent. The lease outlives the transaction and may cross awaits; dispose it to return
    /// the memory (after which its <see cref="IMemoryOwner{T}.Memory"/> must not be used).
    /// </summary>
    public IMemoryOwner<byte>? GetLease(ReadOnlySpan<byte> key) => TryGet(key, out var value) ? new ValueLease(value) : null;

    /// <summary>Inserts or replaces a value.</summary>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        RequireWrite();
        _tree.Put(key, value);
    }

    /// <summary>Removes a key; false when it was absent.</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        RequireWrite();
        return _tree.Delete(key);
    }

    /// <summary>A cursor over the tree, positioned nowhere until a Seek.</summary>
    public TreeIterator Iterate()
    {
        _transaction.ThrowIfUnusable();
        return new TreeIterator(_transaction, _tree.OpenCursor());
    }

    internal BTree Inner => _tree;

    private void RequireWrite()
    {
        _transaction.ThrowIfUnusable();
        if (_transaction is WriteTransaction)
        {
            return;
        }

        throw new InvalidOperationException($"Tree '{Name}' was opened by a read transaction; open it in a write transaction to change it.");
    }
}
