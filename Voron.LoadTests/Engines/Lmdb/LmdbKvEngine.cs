using static Voron.LoadTests.Engines.Lmdb.LmdbNative;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>
/// LMDB as a peer of the <c>kv</c> experiment: one environment per directory, the unnamed main
/// database, one write transaction per batch committed in LMDB's default durable mode (data
/// pages synced, then the meta page: two syncs per commit), readers as read-only transactions.
/// </summary>
/// <remarks>
/// Write transactions must stay on the thread that began them (LMDB's rule, MDB_NOTLS or not);
/// <see cref="InsertBatch"/> begins and commits on the caller's thread.
/// </remarks>
internal sealed class LmdbKvEngine : IKvEngine
{
    /// <summary>The map's upper bound (address space only): the data file grows as it fills.</summary>
    internal const long MapSize = 8L << 30;

    private const uint MaxReaders = 16;
    private const uint FileMode = 0x1A4; // 0644

    private nint _env;
    private readonly uint _dbi;
    private readonly NativeBuffer _scratch = new(1024);
    private byte[] _scanValue = new byte[1024];

    public LmdbKvEngine(string directory)
    {
        Check(mdb_env_create(out _env), "mdb_env_create");
        try
        {
            Check(mdb_env_set_mapsize(_env, nuint.CreateChecked(MapSize)), "mdb_env_set_mapsize");
            Check(mdb_env_set_maxreaders(_env, MaxReaders), "mdb_env_set_maxreaders");
            Check(mdb_env_open(_env, directory, MDB_NOTLS, FileMode), $"mdb_env_open({directory})");
            Check(mdb_txn_begin(_env, 0, 0, out var txn), "mdb_txn_begin");
            var opened = mdb_dbi_open(txn, null, 0, out _dbi);
            if (opened != MDB_SUCCESS)
            {
                mdb_txn_abort(txn);
                Check(opened, "mdb_dbi_open");
            }

            Check(mdb_txn_commit(txn), "mdb_txn_commit");
        }
        catch
        {
            mdb_env_close(_env);
            _scratch.Dispose();
            throw;
        }
    }

    public string Name => KvEngineCatalog.Lmdb;

    /// <summary>The loaded library's version; throws <see cref="DllNotFoundException"/> when liblmdb.so.0 is missing.</summary>
    internal static string LibraryVersion()
    {
        mdb_version(out var major, out var minor, out var patch);
        return $"{major}.{minor}.{patch}";
    }

    public void InsertBatch(IReadOnlyList<(byte[] Key, byte[] Value)> items)
    {
        ObjectDisposedException.ThrowIf(_env == 0, this);
        Check(mdb_txn_begin(_env, 0, 0, out var txn), "mdb_txn_begin");
        try
        {
            foreach (var (key, value) in items)
            {
                _scratch.EnsureCapacity(key.Length + value.Length);
                var mdbKey = _scratch.Set(0, key);
                var mdbValue = _scratch.Set(key.Length, value);
                Check(mdb_put(txn, _dbi, ref mdbKey, ref mdbValue, 0), "mdb_put");
            }
        }
        catch
        {
            mdb_txn_abort(txn);
            throw;
        }

        // mdb_txn_commit frees the transaction whether or not it succeeds.
        Check(mdb_txn_commit(txn), "mdb_txn_commit");
    }

    public IKvReader OpenReader()
    {
        ObjectDisposedException.ThrowIf(_env == 0, this);
        return new LmdbKvReader(_env, _dbi);
    }

    public long ScanAll()
    {
        ObjectDisposedException.ThrowIf(_env == 0, this);
        Check(mdb_txn_begin(_env, 0, MDB_RDONLY, out var txn), "mdb_txn_begin(MDB_RDONLY)");
        try
        {
            Check(mdb_cursor_open(txn, _dbi, out var cursor), "mdb_cursor_open");
            try
            {
                long count = 0;
                var key = default(MdbVal);
                var value = default(MdbVal);
                var result = mdb_cursor_get(cursor, ref key, ref value, MDB_FIRST);
                while (result == MDB_SUCCESS)
                {
                    value.CopyTo(ref _scanValue);
                    count++;
                    result = mdb_cursor_get(cursor, ref key, ref value, MDB_NEXT);
                }

                if (result != MDB_NOTFOUND)
                {
                    Check(result, "mdb_cursor_get");
                }

                return count;
            }
            finally
            {
                mdb_cursor_close(cursor);
            }
        }
        finally
        {
            mdb_txn_abort(txn);
        }
    }

    /// <summary>Closes the environment; every reader must be disposed first (LMDB's rule).</summary>
    public void Dispose()
    {
        if (_env != 0)
        {
            mdb_env_close(_env);
            _env = 0;
        }

        _scratch.Dispose();
    }
}
