namespace Voron.SqliteVfs.Databases;

/// <summary>
/// One commit of a database, submitted to the store (V7): its blocks, its length and what it
/// changed. Immutable once submitted; <see cref="Durable"/> completes when the store has made it
/// durable, or faults when it failed (V8, V9). Its block buffers go back to the pool when it
/// retires (WB2).
/// </summary>
internal sealed class DatabaseVersion
{
    private readonly TaskCompletionSource _durable = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly long _cutFromBlock;
    private readonly bool _lengthChanged;
    private readonly BlockPool _pool;

    // WB2: who can still read the blocks. Two from the start: the store commit (released once,
    // when it completes) and the snapshot of the connection that submitted it (Snapshot.With
    // takes that one over). Zero is final: the buffers are back in the pool.
    private int _holders = 2;
    private int _storeReleased;

    public DatabaseVersion(long sequence, long parentSequence, WriteSet writes, long parentLength, Block0Change block0, IDocumentVersion? documents = null)
    {
        Documents = documents;

        Sequence = sequence;
        ParentSequence = parentSequence;
        Blocks = writes.Blocks;
        _pool = writes.Pool;
        Length = writes.Length;
        MinLength = writes.MinLength;
        Block0 = block0;
        _cutFromBlock = writes.CutFromBlock;
        _lengthChanged = Length != parentLength || MinLength != parentLength;
    }

    public long Sequence { get; }

    /// <summary>
    /// The in-flight version this one was built on, while this one is in flight (null once it
    /// completes, so completed versions do not hold a chain), for V14's report of why it failed.
    /// </summary>
    public DatabaseVersion? Parent { get; set; }

    /// <summary>Why the merged operation refused this version (set by DatabaseState.Apply), or null.</summary>
    public Exception? Failure { get; set; }

    /// <summary>Why this version failed, as far as known: the merged operation's refusal, or what failed <see cref="Durable"/>.</summary>
    public Exception? Cause => Failure ?? _durable.Task.Exception?.InnerException;

    /// <summary>V13: the documents the same SQL transaction changed through voron_docs, or null.</summary>
    public IDocumentVersion? Documents { get; }

    public long ParentSequence { get; }

    /// <summary>Whole 8 KiB blocks this commit wrote, by block number.</summary>
    public IReadOnlyDictionary<long, byte[]> Blocks { get; }

    /// <summary>The file's length after the commit.</summary>
    public long Length { get; }

    /// <summary>The shortest the file got during the commit; blocks from <see cref="IsCut"/> on that it did not write read as zeros.</summary>
    public long MinLength { get; }

    public Block0Change Block0 { get; }

    public Task Durable => _durable.Task;

    public bool IsDurable => _durable.Task.IsCompletedSuccessfully;

    public bool IsFailed => _durable.Task.IsFaulted;

    /// <summary>Whether the commit truncated block <paramref name="block"/> away without writing it again.</summary>
    public bool IsCut(long block) => block >= _cutFromBlock && !Blocks.ContainsKey(block);

    /// <summary>WB2: one more snapshot reads the blocks; false when the version retired already (its buffers may be reused).</summary>
    public bool TryAcquire()
    {
        for (var holders = Volatile.Read(ref _holders); holders > 0; holders = Volatile.Read(ref _holders))
        {
            if (Interlocked.CompareExchange(ref _holders, holders + 1, holders) == holders)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>WB2: a snapshot that held the version let go of it.</summary>
    public void Release()
    {
        var holders = Interlocked.Decrement(ref _holders);
        if (holders == 0)
        {
            foreach (var buffer in Blocks.Values)
            {
                _pool.Return(buffer);
            }
        }
        else if (holders < 0)
        {
            throw new InvalidOperationException($"WB2: database version {Sequence} was released more often than it was held.");
        }
    }

    /// <summary>WB2: the store commit completed (durable or failed); the merged operation never reads the blocks again. Once only.</summary>
    public void ReleaseStoreHold()
    {
        if (Interlocked.Exchange(ref _storeReleased, 1) == 0)
        {
            Release();
        }
    }

    /// <summary>Whether the version retired (tests).</summary>
    internal bool IsRetired => Volatile.Read(ref _holders) == 0;

    /// <summary>What V5's history keeps of this version.</summary>
    public VersionSummary Summary() => new(Sequence, [.. Blocks.Keys], _lengthChanged, Block0);

    public void Complete(Exception? error)
    {
        if (error == null)
        {
            _durable.TrySetResult();
        }
        else
        {
            _durable.TrySetException(error);
        }
    }

    /// <summary>Blocks until the version is durable; rethrows why it failed.</summary>
    public void WaitDurable()
    {
        if (IsDurable)
        {
            return;
        }

        try
        {
            _durable.Task.Wait();
        }
        catch (AggregateException e) when (e.InnerException != null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(e.InnerException).Throw();
        }
    }
}
