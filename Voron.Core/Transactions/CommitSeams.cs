using Voron.Journal;

namespace Voron.Transactions;

/// <summary>
/// What the commit pipeline needs from the store, as functions it is given when it is built
/// (Pebble's <c>commitEnv</c>). The pipeline never sees the store that owns it, so tests drive it
/// with fakes that record the order of the calls (Voron.Tests/Core/Merging/CommitPipelineTests.cs).
/// Each is called at most a few times per commit, never per page.
/// </summary>
internal sealed class CommitSeams
{
    /// <summary>Throws when the store is disposed or failed (checked before the journal write).</summary>
    public required Action ThrowIfUnusable { get; init; }

    /// <summary>Fail-stop (C5): fails the store with the cause, or keeps an earlier failure, and returns what committers get.</summary>
    public required Func<Exception, EnvironmentFailedException> Fail { get; init; }

    /// <summary>Step 1: the transaction prepares its commit (catalog, checksums, diffs: T5, T7); null when it changed nothing.</summary>
    public required Func<LowLevelTransaction, PreparedCommit?> PrepareTransaction { get; init; }

    /// <summary>PG5 (Paging/Pager.cs): grows the data file to the transaction's next page number before the record is written.</summary>
    public required Action<long> ReserveDataFile { get; init; }

    /// <summary>Step 2, before the record: writes the new pages IP1–IP3 choose in place (Transactions/InPlacePages.cs) and returns the record's entries.</summary>
    public Func<PreparedCommit, IReadOnlyList<JournalPage>> WriteInPlace { get; init; } = prepared => prepared.JournalPages;

    /// <summary>Step 2: appends the record (tx id, state, pages) and returns where it lies and its commit time; durable unless the store is lazy (J2).</summary>
    public required Func<long, byte[], IReadOnlyList<JournalPage>, JournalRecordLocation> AppendToJournal { get; init; }

    /// <summary>Whether the journal failed (J7): it made its first write for a record, whatever came after.</summary>
    public required Func<bool> JournalFailed { get; init; }

    /// <summary>Step 3: the page table publishes the transaction's pages and tombstones (PT2).</summary>
    public required Action<PreparedCommit> Publish { get; init; }

    /// <summary>Step 4: the flusher queues the commit (FL9).</summary>
    public required Action<UnflushedTransaction> QueueForFlush { get; init; }

    /// <summary>Step 5: the committed state new transactions begin from (T4).</summary>
    public required Action<CommittedState> MakeVisible { get; init; }

    /// <summary>The test hook at each CommitStep; inert when it does nothing.</summary>
    public required Action<CommitStep> Hook { get; init; }

    /// <summary>The store's path, for the metrics' tag.</summary>
    public required string Path { get; init; }
}
