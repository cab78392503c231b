using LightningDB;
using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Lmdb;

/// <summary>
/// LMDB as a peer, through LightningDB (which ships LMDB itself; <see cref="LmdbLibrary"/> makes
/// it load on Debian 12): one environment per directory, the unnamed main database, one write
/// transaction per batch committed in LMDB's default durable mode (the batch's pages written and
/// fdatasync'd, then the meta page written through an O_DSYNC descriptor: two device flushes per
/// commit), readers as read-only transactions. A simulated flush delay is a sleep after each
/// commit (<see cref="SimulatedDisk"/>: two syncs per commit).
/// </summary>
/// <remarks>
/// Write transactions must stay on the thread that began them (LMDB's rule, MDB_NOTLS or not);
/// <see cref="WriteBatch"/> begins and commits on the caller's thread.
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

    /// <summary>The syncs one commit makes (fdatasync of the data, then the meta page's O_DSYNC write), for the simulated delay.</summary>
    internal const int SyncsPerCommit = 2;

    private const int MaxReaders = 16;

    private readonly LightningEnvironment _env;
    private readonly LightningDatabase _db;
    private readonly SimulatedDisk _disk;
    private byte[] _scanValue = new byte[1024];
    private bool _disposed;

    public LmdbKvEngine(string directory, SimulatedDisk disk)
    {
        Directory = directory;
        _disk = disk;
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

    public string Directory { get; }

    public void WriteBatch(IReadOnlyList<KvWrite> writes)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        using (var tx = _env.BeginTransaction())
        {
            foreach (var write in writes)
            {
                if (write.Value is { } value)
                {
                    tx.Put(_db, write.Key, value).ThrowOnError();
                }
                else
                {
                    var result = tx.Delete(_db, write.Key);
                    if (result != MDBResultCode.NotFound)
                    {
                        result.ThrowOnError();
                    }
                }
            }

            tx.Commit().ThrowOnError(); // an exception before this line aborts the transaction (Dispose)
        }

        _disk.Delay(SyncsPerCommit);
    }

    /// <summary>Nothing: a commit has already written and synced its pages in place.</summary>
    public void Settle()
    {
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
        return Scan(tx, _db, ref _scanValue);
    }

    /// <summary>Every entry in key order in <paramref name="tx"/>, each value copied out.</summary>
    internal static long Scan(LightningTransaction tx, LightningDatabase db, ref byte[] buffer)
    {
        using var cursor = tx.CreateCursor(db);
        long count = 0;
        var (result, _, value) = cursor.First();
        while (result == MDBResultCode.Success)
        {
            LmdbKvReader.CopyOut(value, ref buffer);
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
