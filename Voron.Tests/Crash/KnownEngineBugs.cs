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
    /// A crash while a store is being created can leave it unopenable (an empty or torn
    /// headers.one and no other copy), and the first flush creates headers.two without syncing
    /// the store directory, so a power loss can drop it after journal files it replaced were
    /// released. Workaround: scenarios start from a store that already has both header copies
    /// durable. Regression tests:
    /// <c>Open_after_a_crash_during_store_creation_creates_or_opens_the_store</c>,
    /// <c>Power_loss_after_the_first_flush_keeps_the_second_header_copy</c>.
    /// </summary>
    public static bool HeaderFilesAreNotCrashSafeUntilBothExist { get; } = s_workarounds;

    /// <summary>
    /// The flusher writes, for every page number a flushed transaction touched, that page's newest
    /// version — even when a later transaction in the same flush freed the page and allocated an
    /// overflow run over it, so the stale single page is written over the middle of the run.
    /// Workaround: random workloads either delete but keep overflow values to one page, or use
    /// multi-page values but never free pages. Regression test:
    /// <c>Flush_does_not_write_a_freed_page_over_a_newer_overflow_run</c>.
    /// </summary>
    public static bool FlushWritesFreedPagesOverNewerRuns { get; } = s_workarounds;

    /// <summary>
    /// Recovery that replays nothing but finds the end of the log in a later journal file (a torn
    /// first record there) releases the journal file the durable header still starts from; the
    /// next open without a flush in between throws "the journal file holding the recovery start
    /// position is missing". It needs two crashes in a row, so only RecoveryCrashTests meets it:
    /// with the workaround on, a failure with exactly that message is counted as this bug, not
    /// as a new one. Regression test:
    /// <c>Reopen_after_recovering_a_torn_record_in_a_new_journal_file_finds_the_recovery_start</c>.
    /// </summary>
    public static bool RecoveryReleasesTheHeadersJournalFile { get; } = s_workarounds;

    /// <summary>
    /// When the final flush of Dispose fails, the EnvironmentFailedException it raises escapes
    /// Close (which catches only IOException), skipping the release of the store lock, the
    /// mapping and the journal handle: the store cannot be opened again in this process
    /// (StoreLockedException). Workaround: CrashRun.Reopen flushes explicitly before Dispose, so
    /// a failure surfaces there and the run closes the store without a flush. Regression test:
    /// <c>Dispose_whose_final_flush_fails_releases_the_store_for_a_reopen</c>.
    /// </summary>
    public static bool DisposeLeaksTheLockWhenItsFlushFails { get; } = s_workarounds;

    /// <summary>The known bug a failure message shows, or null when it shows none (or workarounds are off).</summary>
    public static string? Recognize(string failure) =>
        RecoveryReleasesTheHeadersJournalFile && failure.Contains("the journal file holding the recovery start position is missing", StringComparison.Ordinal)
            ? nameof(RecoveryReleasesTheHeadersJournalFile)
            : null;
}
