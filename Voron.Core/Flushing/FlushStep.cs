namespace Voron.Flushing;

/// <summary>
/// The points of a flush, in order (DataFileFlusher's outline), where the flusher calls
/// <c>StorageEnvironmentOptions.FlushHook</c>: tests pause or fail a flush there to race readers,
/// commits and disposal against every step of it. Inert when no hook is set.
/// </summary>
internal enum FlushStep
{
    /// <summary>The flush holds the flush lock and has not looked at readers or commits yet.</summary>
    Started,

    /// <summary>The horizon F is fixed (FL1); the batch of commits up to it is not taken yet.</summary>
    HorizonFixed,

    /// <summary>The batch (commits up to F) is taken; nothing is written yet.</summary>
    BatchTaken,

    /// <summary>The pages are written to the data file, not yet synced.</summary>
    PagesWritten,

    /// <summary>The data file is synced (FL2); the header still names the previous flush.</summary>
    DataSynced,

    /// <summary>The new header is written and synced; the page table still holds the flushed versions.</summary>
    HeaderWritten,

    /// <summary>Versions up to F are dropped from the page table (PT4).</summary>
    PageTableTrimmed,

    /// <summary>Journal files before F's record are released (FL3); the flush is done.</summary>
    JournalReleased,
}
