using Voron.Diagnostics;
using Voron.Platform;
using Voron.Platform.ReadOnly;

namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Reads what the store in <paramref name="directory"/> holds — headers, journal, files, lock —
    /// without opening it: nothing is written, recovered or locked. Throws
    /// <see cref="DirectoryNotFoundException"/> when the directory does not exist,
    /// <see cref="InvalidDataException"/> when it holds no store files,
    /// <see cref="FormatVersionException"/> for a store of a newer format version (a format-1 store is described), and
    /// <see cref="CorruptionException"/> when neither header copy is valid; any other damage found
    /// (a torn journal tail, a damaged record or header copy) is a sentence in <see cref="StoreInfo.Problems"/>.
    /// </summary>
    /// <remarks>
    /// It can run while another process has the store open (files are opened read-only, sharing
    /// everything). The lock is probed, not taken: on Linux and macOS a shared flock for a few
    /// microseconds, which an opener starting in that instant finds held (its
    /// <see cref="StoreLockedException"/> then names no process; retrying opens the store).
    /// </remarks>
    public static StoreInfo Inspect(string directory)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        if (!System.IO.Directory.Exists(directory))
        {
            throw new DirectoryNotFoundException(File.Exists(directory)
                ? $"'{directory}' is a file, not a store: a store is a directory (the one that holds voron.data)."
                : $"There is no store at '{directory}': the directory does not exist.");
        }

        return StoreInspector.Inspect(ReadOnlyFileSystem.Instance, directory, LockFileProbe.Probe); // SI1
    }
}
