namespace Voron.Testing.Crash;

/// <summary>
/// A change to the entries of <see cref="Directory"/>, durable only after SyncDirectory of that
/// directory (F2). <see cref="File"/> is the file the entry named when the change was made: a
/// change that no longer applies after a power loss dropped earlier ones (the entry names another
/// file, or none) is skipped. A rename across directories is one change of its destination
/// directory (CrashFileSystem.MoveFile).
/// </summary>
internal sealed record DirectoryChange(long Sequence, string Directory, DirectoryChangeKind Kind, string Path, string? Target, SimulatedFile? File)
{
    /// <summary>Applies the change to a namespace if it still applies; returns whether it did.</summary>
    public bool ApplyTo(Dictionary<string, SimulatedFile> files, HashSet<string> directories)
    {
        switch (Kind)
        {
            case DirectoryChangeKind.CreateDirectory:
                return directories.Add(Path);
            case DirectoryChangeKind.CreateFile:
                return files.TryAdd(Path, File!);
            case DirectoryChangeKind.DeleteFile:
                return files.TryGetValue(Path, out var deleted) && deleted == File && files.Remove(Path);
            case DirectoryChangeKind.MoveFile:
                if (!files.TryGetValue(Path, out var moved) || moved != File)
                {
                    return false;
                }

                files.Remove(Path);
                files[Target!] = File;
                return true;
            default:
                throw new InvalidOperationException($"Unknown directory change {Kind}.");
        }
    }
}
