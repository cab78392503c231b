namespace Voron.Journal;

/// <summary>What the statistics (Diagnostics/StatisticsCollector.cs) read of the writer from another thread.</summary>
internal sealed partial class JournalWriter
{
    /// <summary>
    /// The number of the file records are appended to. Read without the writer's lock, so it may
    /// be one rotation stale; it only ever grows, and a file listed before this read is at or
    /// below it.
    /// </summary>
    public long CurrentFileNumber => Volatile.Read(ref _fileNumber);
}
