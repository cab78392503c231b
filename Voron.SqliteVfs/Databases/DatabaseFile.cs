using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteVfs.Databases;

/// <summary>
/// One connection's main database file: its lock level, snapshot and write set over the shared
/// <see cref="DatabaseState"/> (rules V1–V18 in DatabaseState.cs). SQLite calls it from one
/// thread at a time (the connection's mutex), not always the same thread.
/// </summary>
internal sealed partial class DatabaseFile : VfsFile
{
    /// <summary>V6: how long a ticket waits for its statement to come back.</summary>
    internal static readonly TimeSpan TicketLifetime = TimeSpan.FromSeconds(1);

    private readonly DatabaseState _database;
    private readonly VoronSqliteOptions _options;
    private readonly string _vfsName;

    // SQLite's page cache as the VFS can infer it (V5): blocks it may hold, and the 16 bytes at
    // offset 24 of the page 1 it holds (it drops its cache when the bytes read at SHARED differ).
    private readonly HashSet<long> _cachedBlocks = [];
    private byte[]? _pagerVersion;

    /// <summary>V17: a commit failed after SQLite finished its side of it; its cache holds pages no state has.</summary>
    private bool _pagerCacheDistrusted;

    private int _level;
    private Snapshot? _snapshot;
    private WriteSet? _writes;
    private bool _writer;
    private TicketState _ticket;
    private TimeSpan? _busyTimeout;
    private bool _closed;

    public DatabaseFile(DatabaseState database, VoronSqliteOptions options, string vfsName, bool readOnly, bool onReadReplica = false)
    {
        _database = database;
        _options = options;
        _vfsName = vfsName;
        ReadOnly = readOnly;
        OnReadReplica = onReadReplica;
    }

    private enum TicketState
    {
        None,

        /// <summary>SQLITE_SCHEMA was returned; the statement's re-run has not taken SHARED yet.</summary>
        Issued,

        /// <summary>The re-run took SHARED with a fresh snapshot.</summary>
        Used,
    }

    public bool ReadOnly { get; }

    /// <summary>V18: the store is a read replica; every write is refused with SQLITE_READONLY.</summary>
    public bool OnReadReplica { get; }

    /// <summary>V18: why a write to this database is refused on a read replica.</summary>
    public ReadReplicaException ReplicaRefusal() => ReadReplicaException.Write(_database.Environment, _vfsName, Name);

    public string Name => _database.Name;

    /// <summary>SQLite's database pages match store pages at 8 KiB (the default for new databases, since pages default to the sector size).</summary>
    public override int SectorSize => 8192;

    // No POWERSAFE_OVERWRITE: with it SQLite would pick 4 KiB pages for new databases.
    public override int DeviceCharacteristics => 0;

    public override long Size => _writes?.Length ?? _snapshot?.Length ?? TransientSnapshot(s => s.Length);

    public override bool IsReservedByAnother => _database.WriteLock.IsHeldByAnother(this);

    public override void Close()
    {
        _closed = true;
        _writes?.Discard(); // WB1
        _writes = null;
        _documents = null;
        _writer = false;
        _database.WriteLock.Release(this);
        _snapshot?.Dispose();
        _snapshot = null;
        _level = SqliteConstants.LockNone;
    }

    private T TransientSnapshot<T>(Func<Snapshot, T> read)
    {
        // SQLite asks for the size (and reads the header) at open, before it takes SHARED.
        using var snapshot = _database.TakeDurable();
        return read(snapshot);
    }
}
