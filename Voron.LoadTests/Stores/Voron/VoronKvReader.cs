using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>One Voron read transaction held for the reader's life.</summary>
internal sealed class VoronKvReader : IKvReader
{
    private readonly StorageEnvironment _environment;
    private ReadTransaction _transaction;
    private Tree? _tree;
    private byte[] _value = new byte[1024];

    internal VoronKvReader(StorageEnvironment environment)
    {
        _environment = environment;
        _transaction = environment.BeginRead();
        _tree = _transaction.OpenTree(VoronKvEngine.TreeName);
    }

    public void Refresh()
    {
        _transaction.Dispose();
        _transaction = _environment.BeginRead();
        _tree = _transaction.OpenTree(VoronKvEngine.TreeName);
    }

    public bool TryGet(byte[] key, out int valueLength)
    {
        if (_tree == null || !_tree.TryGet(key, out var value))
        {
            valueLength = 0;
            return false;
        }

        valueLength = VoronKvEngine.CopyOut(value, ref _value);
        return true;
    }

    public int Scan(byte[] from, int count)
    {
        if (_tree == null)
        {
            return 0;
        }

        var read = 0;
        var iterator = _tree.Iterate();
        for (var more = iterator.Seek(from); more && read < count; more = iterator.MoveNext())
        {
            VoronKvEngine.CopyOut(iterator.Value, ref _value);
            read++;
        }

        return read;
    }

    public long WarmUp() => VoronKvEngine.Scan(_tree, ref _value);

    public void Dispose() => _transaction.Dispose();
}
