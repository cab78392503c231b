namespace Voron.LoadTests.Measurement;

/// <summary>
/// The size of a store on disk: the apparent sizes (file lengths) of every file under its
/// directory, so preallocated journal space (Voron), the WAL and its index (SQLite) and the lock
/// file (LMDB) all count. Apparent, not allocated: a sparse file would count its holes.
/// </summary>
internal static class StoreSize
{
    /// <summary>Bytes of every file under <paramref name="directory"/>; 0 when it does not exist.</summary>
    public static long Of(string directory) =>
        Directory.Exists(directory)
            ? new DirectoryInfo(directory).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length)
            : 0;

    /// <summary>Bytes of the one file <paramref name="path"/>; 0 when it does not exist.</summary>
    public static long OfFile(string path) => File.Exists(path) ? new FileInfo(path).Length : 0;

    public static double MiB(long bytes) => bytes / 1048576.0;
}
