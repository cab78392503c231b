namespace Voron.Tests.Core.Engine;

/// <summary>Opens stores for tests.</summary>
internal static class StoreFactory
{
    /// <summary>
    /// Options over an in-memory file system that outlives each environment, so a test can close
    /// (or drop) a store and open it again to exercise recovery. Background flushing is off unless
    /// asked for, so tests decide when the data file is written.
    /// </summary>
    public static StorageEnvironmentOptions Options(InMemoryFileSystem fileSystem, bool backgroundFlush = false, long journalFileSize = 1 << 20)
    {
        var options = StorageEnvironmentOptions.ForFileSystem("/store", fileSystem);
        options.BackgroundFlush = backgroundFlush;
        options.JournalFileSize = journalFileSize;
        options.MaxDataFileSize = 4L << 30;
        return options;
    }

    public static InMemoryFileSystem NewFileSystem() => new(reservePerFile: 4L << 30);
}
