using LightningDB;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>One read-only LMDB transaction, held for the reader's life, for point reads from one thread.</summary>
internal sealed class LmdbKvReader : IKvReader
{
    private readonly LightningDatabase _db;
    private readonly LightningTransaction _tx;
    private byte[] _value = new byte[1024];
    private bool _disposed;

    internal LmdbKvReader(LightningEnvironment env, LightningDatabase db)
    {
        _db = db;
        _tx = env.BeginTransaction(TransactionBeginFlags.ReadOnly);
    }

    public bool TryGet(byte[] key, out int valueLength)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        var (result, _, value) = _tx.Get(_db, key);
        if (result == MDBResultCode.NotFound)
        {
            valueLength = 0;
            return false;
        }

        result.ThrowOnError();
        valueLength = CopyOut(value, ref _value);
        return true;
    }

    /// <summary>
    /// Copies a value out of LMDB's map into <paramref name="buffer"/> (grown if too small), as a
    /// caller that keeps the value past the transaction must; returns its length.
    /// </summary>
    internal static int CopyOut(MDBValue value, ref byte[] buffer)
    {
        var bytes = value.AsSpan();
        if (bytes.Length > buffer.Length)
        {
            buffer = new byte[bytes.Length];
        }

        bytes.CopyTo(buffer);
        return bytes.Length;
    }

    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            _tx.Dispose();
        }
    }
}
