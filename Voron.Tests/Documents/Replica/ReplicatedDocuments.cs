namespace Voron.Tests.Documents.Replica;

/// <summary>
/// A primary document store that ships its journal to a directory destination, shipped on demand
/// (each <see cref="ShipAsync"/> leaves the current journal file and uploads what is archived, so
/// the destination holds every commit), and read replicas of it opened through
/// <see cref="DocumentStore.OpenReplica"/>.
/// </summary>
internal sealed class ReplicatedDocuments : IDisposable
{
    /// <summary>How long a test waits for a replica before it fails instead of hanging (a guard, not an assertion on speed).</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromMinutes(2);

    private readonly TempDirectory _temp = new();

    public ReplicatedDocuments(Action<DocumentStoreOptions>? tune = null)
    {
        Destination = new DirectoryArchiveDestination(_temp.Combine("remote"));
        var options = StorageEnvironmentOptions.ForDirectory(_temp.Combine("primary"));
        options.JournalArchiveDirectory = _temp.Combine("archive");
        options.ArchiveDestination = Destination;
        options.ShipArchiveInBackground = false;
        options.ArchiveMaxDelay = TimeSpan.Zero; // ReleaseAgedJournalFile leaves any file that holds a record
        Environment = StorageEnvironment.Open(options);
        var storeOptions = new DocumentStoreOptions();
        storeOptions.Expiration.Enabled = false; // no background transactions on the primary: its last commit is the tests'
        tune?.Invoke(storeOptions);
        Primary = DocumentStore.Open(Environment, storeOptions);
    }

    public IArchiveDestination Destination { get; }

    public StorageEnvironment Environment { get; }

    public DocumentStore Primary { get; }

    public string Combine(string name) => _temp.Combine(name);

    /// <summary>A backup of the primary uploaded as the snapshot replicas start from.</summary>
    public async Task UploadSnapshotAsync()
    {
        var backup = await Environment.BackupAsync(_temp.Combine("backup-" + Guid.NewGuid().ToString("N")[..8]));
        await ObjectArchive.UploadSnapshotAsync(Destination, backup.Directory);
    }

    /// <summary>Ships every commit so far; returns the last transaction the destination holds (the primary's last).</summary>
    public async Task<long> ShipAsync()
    {
        Environment.ReleaseAgedJournalFile();
        var status = await Environment.ShipArchiveAsync();
        Assert.Equal(Environment.LastCommittedTransactionId, status.LastShippedTransaction);
        return status.LastShippedTransaction;
    }

    public DocumentStore OpenReplica(string name = "replica", DocumentStoreOptions? options = null) =>
        DocumentStore.OpenReplica(Destination, _temp.Combine(name), new ReplicaOptions { PollInterval = TimeSpan.FromMilliseconds(20) }, options);

    /// <summary>Waits (at most <see cref="Patience"/>) until <paramref name="replica"/> applied <paramref name="transactionId"/>.</summary>
    public static async Task WaitAsync(DocumentStore replica, long transactionId)
    {
        using var timeout = new CancellationTokenSource(Patience);
        await replica.WaitForTransactionAsync(transactionId, timeout.Token);
    }

    /// <summary>The store's every document as its export writes them (ids, collections, versions, times, JSON), in one snapshot.</summary>
    public static async Task<(long TransactionId, string Lines)> ExportAsync(DocumentStore store)
    {
        using var stream = new MemoryStream();
        var result = await store.ExportAsync(stream);
        return (result.TransactionId, Encoding.UTF8.GetString(stream.ToArray()));
    }

    public void Dispose()
    {
        Primary.Dispose();
        Environment.Dispose();
        _temp.Dispose();
    }
}
