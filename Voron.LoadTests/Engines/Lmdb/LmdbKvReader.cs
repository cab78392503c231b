using static Voron.LoadTests.Engines.Lmdb.LmdbNative;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>One read-only LMDB transaction, held for the reader's life, for point reads from one thread.</summary>
internal sealed class LmdbKvReader : IKvReader
{
    private readonly uint _dbi;
    private readonly NativeBuffer _key = new(512);
    private nint _txn;
    private byte[] _value = new byte[1024];

    internal LmdbKvReader(nint env, uint dbi)
    {
        _dbi = dbi;
        var begun = mdb_txn_begin(env, 0, MDB_RDONLY, out _txn);
        if (begun != MDB_SUCCESS)
        {
            _key.Dispose();
            Check(begun, "mdb_txn_begin(MDB_RDONLY)");
        }
    }

    public bool TryGet(byte[] key, out int valueLength)
    {
        ObjectDisposedException.ThrowIf(_txn == 0, this);
        _key.EnsureCapacity(key.Length);
        var mdbKey = _key.Set(0, key);
        var result = mdb_get(_txn, _dbi, ref mdbKey, out var value);
        if (result == MDB_NOTFOUND)
        {
            valueLength = 0;
            return false;
        }

        Check(result, "mdb_get");
        valueLength = value.CopyTo(ref _value);
        return true;
    }

    public void Dispose()
    {
        if (_txn != 0)
        {
            mdb_txn_abort(_txn);
            _txn = 0;
        }

        _key.Dispose();
    }
}
