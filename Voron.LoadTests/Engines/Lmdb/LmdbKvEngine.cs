using LightningDB;

namespace Voron.LoadTests.Engines.Lmdb;

/// <summary>
/// LMDB as a peer of the <c>kv</c> and <c>merge</c> experiments, through LightningDB (which
/// ships LMDB itself; <see cref="LmdbLibrary"/> makes it load on Debian 12): one environment per
/// directory, the unnamed main database, one write transaction per batch committed in LMDB's
/// default durable mode (data pages synced, then the meta page: two syncs per commit), readers as
/// read-only transactions.
/// </summary>
/// <remarks>
/// Write transactions must stay on the thread that began them (LMDB's rule, MDB_NOTLS or not);
/// <see cref="InsertBatch"/> begins and commits on the caller's thread.
/// </remarks>
internal sealed class LmdbKvEngine : IKvEngine
{
    /// <summary>The map's upper bound (address space only): the data file grows as it fills.</summary>
    internal const long MapSize = 8L << 30;

    /// <summary>
    /// The environment's flags, stated in every report: no NoSync, NoMetaSync, WriteMap or MapAsync,
    /// so a commit returns after LMDB has synced its data pages and then its meta page.
    /// NoThreadLocalStorage (MDB_NOTLS) ties a read transaction to its object rather than to the
    /// thread that began it, so a reader may be opened on one thread and used on another.
    /// </summary>
    internal const EnvironmentOpenFlags OpenFlags = EnvironmentOpenFlags.NoThreadLocalStorage;

    private const int MaxReaders = 16;

    private readonly LightningEnvironment _env;
    private readonly LightningDatabase _db;
    private byte[] _scanValue = new byte[1024];
    private bool _disposed;

    public LmdbKvEngine(string directory)
    {
        LmdbLibrary.Install();
        _env = new LightningEnvironment(directory, new EnvironmentConfiguration { MapSize = MapSize, MaxReaders = MaxReaders });
        try
        {
            _env.Open(OpenFlags);
            using var tx = _env.BeginTransaction();
            _db = tx.OpenDatabase();
            tx.Commit().ThrowOnError();
        }
        catch
        {
            _env.Dispose();
            throw;
        }
    }

    public string Name => KvEngineCatalog.Lmdb;

    public void InsertBatch(IReadOnlyList<(byte[] Key, byte[] Value)> items)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        using var tx = _env.BeginTransaction();
        foreach (var (key, value) in items)
        {
            tx.Put(_db, key, value).ThrowOnError();
        }

        tx.Commit().ThrowOnError(); // an exception before this line aborts the transaction (Dispose)
    }

    public IKvReader OpenReader()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        return new LmdbKvReader(_env, _db);
    }

    public long ScanAll()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        using var tx = _env.BeginTransaction(TransactionBeginFlags.ReadOnly);
        using var cursor = tx.CreateCursor(_db);
        long count = 0;
        var (result, _, value) = cursor.First();
        while (result == MDBResultCode.Success)
        {
            LmdbKvReader.CopyOut(value, ref _scanValue);
            count++;
            (result, _, value) = cursor.Next();
        }

        if (result != MDBResultCode.NotFound)
        {
            result.ThrowOnError();
        }

        return count;
    }

    /// <summary>Closes the environment; every reader must be disposed first (LMDB's rule).</summary>
    public void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            _db.Dispose();
            _env.Dispose();
        }
    }
}
