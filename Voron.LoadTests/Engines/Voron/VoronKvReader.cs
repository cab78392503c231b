namespace Voron.LoadTests.Engines.Voron;

/// <summary>One Voron read transaction held for the reader's life.</summary>
internal sealed class VoronKvReader : IKvReader
{
    private readonly ReadTransaction _transaction;
    private readonly Tree? _tree;
    private byte[] _value = new byte[1024];

    internal VoronKvReader(ReadTransaction transaction)
    {
        _transaction = transaction;
        _tree = transaction.OpenTree(VoronKvEngine.TreeName);
    }

    public bool TryGet(byte[] key, out int valueLength)
    {
        if (_tree == null || !_tree.TryGet(key, out var value))
        {
            valueLength = 0;
            return false;
        }

        if (value.Length > _value.Length)
        {
            _value = new byte[value.Length];
        }

        value.CopyTo(_value);
        valueLength = value.Length;
        return true;
    }

    public void Dispose() => _transaction.Dispose();
}
