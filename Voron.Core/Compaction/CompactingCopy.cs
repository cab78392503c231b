using Voron.Backup;
using Voron.Platform;

namespace Voron.Compaction;

/// <summary>Placeholder for Task B's dense copy (replaced at merge by its CompactingCopy.cs).</summary>
internal static class CompactingCopy
{
    /// <summary>Writes a new dense store (fresh store id) at <paramref name="destinationDirectory"/>, synced and closed; returns the data file's pages.</summary>
    internal static long Write(ReadTransaction source, IFileSystem fileSystem, string destinationDirectory, CopyMeter meter) =>
        throw new NotImplementedException();
}
