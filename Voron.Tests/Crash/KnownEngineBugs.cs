namespace Voron.Tests.Crash;

/// <summary>
/// Engine bugs the crash tests found that are not fixed yet. Each has a skipped regression test
/// (CrashRegressionTests) that reproduces it; each switch here steers the broad tests around the
/// bug, so they keep guarding everything else meanwhile. To close one: fix the engine, un-skip
/// its regression test, and delete the switch. <c>VORON_NO_WORKAROUNDS=1</c> turns every switch
/// off, to check a fix without editing this file.
/// </summary>
internal static class KnownEngineBugs
{
    private static readonly bool s_workarounds = Environment.GetEnvironmentVariable("VORON_NO_WORKAROUNDS") != "1";

    /// <summary>
    /// Lazy mode: when a power loss drops lazy record N but keeps the later lazy record N + 1,
    /// recovery rightly ends the log before N, but the writer then reuses N's slot and leaves N + 1
    /// in place; once the new N is synced, the next recovery replays the stale N + 1 (a diff
    /// against a page version that no longer exists) as its successor. Workaround: for lazy-mode
    /// scenarios CrashHarness.CheckCrashPoint does not reopen the store a second time after the
    /// write that follows recovery.
    /// Regression test: <c>Lazy_recovery_never_replays_a_record_left_after_the_discarded_tail</c>.
    /// </summary>
    public static bool LazyReplaysStaleRecordsAfterTheDiscardedTail { get; } = s_workarounds;

    /// <summary>
    /// Lazy mode breaks the write-ahead rule twice: the flusher writes and syncs data-file pages
    /// of transactions whose journal records are not yet durable, and recovery after a process
    /// restart replays lazy records that are only in the OS cache into the data file without
    /// syncing the journal first. A power loss before the new header then leaves the data file
    /// ahead of the journal: the next recovery stops at the last durable record while the data
    /// file holds pages of later transactions — wrong answers and failed checksums. Workaround:
    /// in lazy-mode scenarios CrashRun.Flush and CrashRun.RestartProcess sync the journal first.
    /// Regression tests: <c>Lazy_flush_never_writes_the_data_file_ahead_of_the_durable_journal</c>,
    /// <c>Lazy_recovery_after_a_restart_never_writes_the_data_file_ahead_of_the_durable_journal</c>.
    /// </summary>
    public static bool LazyWritesDataFileAheadOfTheJournal { get; } = s_workarounds;

    /// <summary>
    /// The final flush of Dispose writes a header whose FlushData fails; Dispose hides the
    /// failure, and the OS cache still shows the new header although the disk may have lost it
    /// (fsyncgate). A reopen in the same boot trusts the cached header and releases the journal
    /// files before its position; a power loss then leaves the old durable header naming a
    /// released journal file: the store cannot be opened. Workaround: with faults injected,
    /// CrashRun.Reopen flushes explicitly before Dispose, so the failure stops the run. Regression
    /// test: <c>Reopen_after_a_failed_header_fsync_keeps_the_journal_the_durable_header_needs</c>.
    /// </summary>
    public static bool OpenTrustsAHeaderWhoseFsyncFailed { get; } = s_workarounds;
}
