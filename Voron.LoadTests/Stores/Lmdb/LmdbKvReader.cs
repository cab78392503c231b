using LightningDB;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Lmdb;

/// <summary>One read-only LMDB transaction, held for the reader's life, for reads from one thread.</summary>
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

    public int Scan(byte[] from, int count)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        using var cursor = _tx.CreateCursor(_db);
        var read = 0;
        var result = cursor.SetRange(from);
        var value = default(MDBValue);
        if (result == MDBResultCode.Success)
        {
            (result, _, value) = cursor.GetCurrent();
        }

        while (result == MDBResultCode.Success && read < count)
        {
            CopyOut(value, ref _value);
            read++;
            if (read < count)
            {
                (result, _, value) = cursor.Next();
            }
        }

        if (result is not MDBResultCode.Success and not MDBResultCode.NotFound)
        {
            result.ThrowOnError();
        }

        return read;
    }

    public void Refresh()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        _tx.Reset();
        _tx.Renew().ThrowOnError();
    }

    public long WarmUp()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return LmdbKvEngine.Scan(_tx, _db, ref _value);
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
