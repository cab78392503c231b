namespace Voron.LoadTests.Capabilities;

/// <summary>
/// A peer engine (SQLite, LMDB) written to by many callers through a <see cref="GroupCommitQueue{T}"/>:
/// batched (everything queued, up to <see cref="MaxBatch"/>, in one transaction: the group commit
/// an application would build) or naive (one transaction per write, served in arrival order).
/// </summary>
internal sealed class BatchedPeerWriter : IConcurrentWriter
{
    /// <summary>The most writes one batched transaction takes: Voron's default MaxBatchOperations, so both batch alike.</summary>
    internal const int MaxBatch = 4096;

    private readonly IKvEngine _engine;
    private readonly GroupCommitQueue<KvWrite> _queue;

    public BatchedPeerWriter(string mode, IKvEngine engine, bool batched)
    {
        Mode = mode;
        _engine = engine;
        _queue = new GroupCommitQueue<KvWrite>(engine.WriteBatch, batched ? MaxBatch : 1, $"{mode} committer");
    }

    /// <summary>
    /// A peer's two modes of <c>merge</c> over its key-value engine <paramref name="engine"/>:
    /// <paramref name="naiveMode"/> (closed loop only) and <paramref name="batchedMode"/> (both loops).
    /// </summary>
    internal static ConcurrentWriterKind[] Modes(string naiveMode, string batchedMode, KvEngineKind engine) =>
    [
        new(naiveMode, OpenLoop: false, engine.Name, (directory, disk) => new BatchedPeerWriter(naiveMode, engine.Open(directory, disk), batched: false)),
        new(batchedMode, OpenLoop: true, engine.Name, (directory, disk) => new BatchedPeerWriter(batchedMode, engine.Open(directory, disk), batched: true)),
    ];

    public string Mode { get; }

    public string Directory => _engine.Directory;

    public long Flushes => _queue.Batches;

    public Task PutAsync(byte[] key, byte[] value) => _queue.SubmitAsync(KvWrite.Put(key, value));

    public void Settle() => _engine.Settle();

    public void Dispose()
    {
        _queue.Dispose();
        _engine.Dispose();
    }
}
