namespace Voron.Tests.Sql.Replica;

/// <summary>
/// A primary store that ships its journal to a directory destination, registered as a SQLite VFS,
/// and a read replica of it (<see cref="StartReplicaAsync"/>) registered as another VFS. Each
/// registration has a name of its own (registrations are process-wide and tests run in parallel).
/// Without background shipping, <see cref="ShipAsync"/> ships; with it, the primary ships every
/// commit on its own within a few tens of milliseconds.
/// </summary>
internal sealed class ReplicatedSql : IDisposable
{
    /// <summary>How long a test waits for the replica before it fails (no verdict depends on it).</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromMinutes(2);

    private readonly TempDirectory _temp = new();

    public ReplicatedSql(bool shipInBackground = false)
    {
        Destination = new DirectoryArchiveDestination(_temp.Combine("remote"));
        var options = StorageEnvironmentOptions.ForDirectory(_temp.Combine("primary"));
        options.JournalFileSize = 256 << 10;
        options.JournalArchiveDirectory = _temp.Combine("archive");
        options.ArchiveDestination = Destination;
        options.ShipArchiveInBackground = shipInBackground;
        options.ArchiveShippingInterval = TimeSpan.FromMilliseconds(20);
        options.ArchiveMaxDelay = TimeSpan.Zero; // every commit's file is released at once: nothing waits in the live journal
        Primary = StorageEnvironment.Open(options);
        PrimarySql = VoronSqlite.Register(Primary, "voron-primary-" + Guid.NewGuid().ToString("N")[..12]);
    }

    public IArchiveDestination Destination { get; }

    public StorageEnvironment Primary { get; }

    public VoronSqliteRegistration PrimarySql { get; }

    public StorageEnvironment Replica { get; private set; } = null!;

    public VoronSqliteRegistration ReplicaSql { get; private set; } = null!;

    public string Combine(string name) => _temp.Combine(name);

    /// <summary>Uploads a snapshot of the primary as it is now and opens a replica from it.</summary>
    public async Task StartReplicaAsync()
    {
        var backup = await Primary.BackupAsync(_temp.Combine("backup"));
        await ObjectArchive.UploadSnapshotAsync(Destination, backup.Directory);
        Replica = StorageEnvironment.OpenReplica(Destination, _temp.Combine("replica"), new ReplicaOptions
        {
            Lineage = Primary.StoreId.ToString("x16", CultureInfo.InvariantCulture),
            PollInterval = TimeSpan.FromMilliseconds(20),
        });
        ReplicaSql = VoronSqlite.Register(Replica, "voron-replica-" + Guid.NewGuid().ToString("N")[..12]);
    }

    /// <summary>A connection to <paramref name="database"/> on the primary (unpooled: it closes with the test).</summary>
    public SqliteConnection OpenPrimary(string database) => Open(PrimarySql, database, SqliteOpenMode.ReadWriteCreate);

    /// <summary>A connection to <paramref name="database"/> on the replica, as a user's connection string opens it.</summary>
    public SqliteConnection OpenReplica(string database, SqliteOpenMode mode = SqliteOpenMode.ReadWriteCreate) => Open(ReplicaSql, database, mode);

    /// <summary>Runs <paramref name="statements"/> on the primary's <paramref name="database"/>, each in a transaction of its own.</summary>
    public void OnPrimary(string database, params string[] statements)
    {
        using var connection = OpenPrimary(database);
        foreach (var statement in statements)
        {
            connection.Execute(statement);
        }
    }

    /// <summary>The rows of <paramref name="query"/> on the primary's <paramref name="database"/> as it is now.</summary>
    public List<object?[]> PrimaryRows(string database, string query)
    {
        using var connection = OpenPrimary(database);
        return connection.Rows(query);
    }

    public string ReplicaConnectionString(string database, SqliteOpenMode mode = SqliteOpenMode.ReadWriteCreate) =>
        new SqliteConnectionStringBuilder { DataSource = database, Vfs = ReplicaSql.VfsName, Mode = mode, Pooling = false }.ToString();

    private static SqliteConnection Open(VoronSqliteRegistration registration, string database, SqliteOpenMode mode)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = database, Vfs = registration.VfsName, Mode = mode, Pooling = false }.ToString());
        try
        {
            connection.Open();
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Ships everything the primary committed (its current journal file is released first) and
    /// returns the primary's last transaction id: the token a caller waits for on the replica.
    /// </summary>
    public async Task<long> ShipAsync()
    {
        var token = Primary.LastCommittedTransactionId;
        Primary.ReleaseAgedJournalFile();
        Primary.FlushToDataFile();
        var status = await Primary.ShipArchiveAsync();
        Assert.True(status.LastShippedTransaction >= token, $"the destination holds transactions up to {status.LastShippedTransaction}, the primary committed {token}");
        return token;
    }

    /// <summary>Waits until the replica applied transaction <paramref name="token"/> (the primary's id).</summary>
    public async Task WaitAsync(long token)
    {
        using var timeout = new CancellationTokenSource(Patience);
        Replica.WakeReplica();
        await Replica.WaitForTransactionAsync(token, timeout.Token);
    }

    /// <summary>Ships what the primary committed and waits until the replica applied it; returns the token.</summary>
    public async Task<long> CatchUpAsync()
    {
        var token = await ShipAsync();
        await WaitAsync(token);
        return token;
    }

    public void Dispose()
    {
        ReplicaSql?.Dispose();
        Replica?.Dispose();
        PrimarySql.Dispose();
        Primary.Dispose();
        _temp.Dispose();
    }
}
