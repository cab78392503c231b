using Voron.LoadTests.Capabilities;

namespace Voron.LoadTests.Stores.Voron;

/// <summary>
/// Voron with every write an operation of its transaction merger (<see cref="StorageEnvironment.ExecuteAsync(Action{WriteTransaction}, CancellationToken)"/>):
/// unmerged (a batch of one: a transaction and a journal flush per write), merged (concurrent
/// writes share a transaction and a flush), or merged with async commit (the next batch runs
/// while the previous one is written and flushed).
/// </summary>
internal sealed class VoronMergedWriter : IConcurrentWriter
{
    private const string TreeName = "merge";

    private VoronMergedWriter(string mode, StorageEnvironment environment)
    {
        Mode = mode;
        Environment = environment;
    }

    public string Mode { get; }

    public string Directory => Environment.Path;

    public StorageEnvironment Environment { get; }

    public StorageEnvironment VoronEnvironment => Environment;

    public long Flushes => Environment.JournalWrites;

    /// <summary>Opens a store with <paramref name="options"/> set for the mode: <paramref name="merged"/> (else batches of one) and <paramref name="asyncCommit"/>.</summary>
    public static VoronMergedWriter Open(string mode, StorageEnvironmentOptions options, bool merged, bool asyncCommit)
    {
        if (!merged)
        {
            options.MaxBatchOperations = 1;
        }

        options.AsyncCommit = asyncCommit;
        var environment = StorageEnvironment.Open(options);
        try
        {
            environment.ExecuteAsync(tx => tx.CreateTree(TreeName)).GetAwaiter().GetResult();
            return new VoronMergedWriter(mode, environment);
        }
        catch
        {
            environment.Dispose();
            throw;
        }
    }

    public Task PutAsync(byte[] key, byte[] value) => Environment.ExecuteAsync(tx => tx.CreateTree(TreeName).Put(key, value));

    public void Settle() => Environment.FlushToDataFile();

    public void Dispose() => Environment.Dispose();
}
