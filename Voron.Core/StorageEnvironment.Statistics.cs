namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// The store's make-up as of the last commit: trees with pages by kind and fill, free space per
    /// section, journal files, scratch use, the oldest reader. Reads every tree page (not the
    /// overflow runs or page-file blocks): seconds for a store of gigabytes; never blocks writers.
    /// </summary>
    public StoreStatistics GetStatistics() => throw new NotImplementedException();
}
