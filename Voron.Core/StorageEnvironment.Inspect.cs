namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Reads what the store in <paramref name="directory"/> holds — headers, journal, files, lock —
    /// without opening it: nothing is written, recovered or locked. Throws
    /// <see cref="DirectoryNotFoundException"/> when the directory does not exist,
    /// <see cref="FormatVersionException"/> for a store of another format version, and
    /// <see cref="CorruptionException"/> when neither header copy is valid.
    /// </summary>
    public static StoreInfo Inspect(string directory)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        throw new NotImplementedException("issue 26: StorageEnvironment.Inspect");
    }
}
