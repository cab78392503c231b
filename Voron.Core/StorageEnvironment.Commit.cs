using Voron.Transactions;

namespace Voron;

public sealed partial class StorageEnvironment
{
    // The commit steps (1–5) and their ordering rules (C1–C5) live in
    // Transactions/CommitPipeline.cs; the environment builds the pipeline with the functions it
    // needs (CommitSeams, in StorageEnvironment.cs) and wraps an explicit commit in LC3.

    /// <summary>How many journal records (each one write + one fdatasync) this environment wrote since it opened.</summary>
    public long JournalWrites => _pipeline.JournalWrites;

    /// <summary>
    /// How many merged operations ran as caller-run batches (TransactionMerger MG1) since the
    /// environment opened: on their submitting thread, with no hand-off to the merger's writer.
    /// </summary>
    internal long CallerRunBatches => _merger.CallerRunBatches;

    /// <summary>Bytes written to the journal since the environment opened (records with headers and padding).</summary>
    public long JournalBytesWritten => Journal.Statistics().Bytes;

    /// <summary>Time spent encoding journal records (page diffs, LZ4, checksums) since the environment opened.</summary>
    public TimeSpan JournalEncodeTime => Journal.Statistics().EncodeTime + _pipeline.DiffTime;

    /// <summary>Commits an explicit write transaction synchronously (steps 1–5 of the pipeline); C5 for its failures.</summary>
    internal void Commit(LowLevelTransaction transaction)
    {
        ThrowIfUnusable();
        _registry.EnterCommit(); // LC3: refused once Dispose has begun; Dispose waits for it
        try
        {
            _pipeline.Commit(transaction);
        }
        finally
        {
            _registry.ExitCommit();
        }
    }

    /// <summary>Step 1 of the pipeline (tests look at a prepared commit's journal pages).</summary>
    internal PreparedCommit? Prepare(LowLevelTransaction transaction) => _pipeline.Prepare(transaction);
}
