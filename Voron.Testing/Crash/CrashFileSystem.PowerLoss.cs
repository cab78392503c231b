using Voron.Platform;

namespace Voron.Testing.Crash;

/// <summary>Building the disk a power loss leaves (see the notes in CrashFileSystem.cs).</summary>
internal sealed partial class CrashFileSystem
{
    /// <summary>
    /// The machine after a power loss now, with unsynced changes decided by <paramref name="policy"/>:
    /// a new simulator whose every file and directory is durable. This simulator is unchanged.
    /// </summary>
    public CrashFileSystem AfterPowerLoss(PowerLossPolicy policy, int? seed = null)
    {
        ArgumentNullException.ThrowIfNull(policy);
        lock (_lock)
        {
            policy.Prepare(_files.Values.Concat(_durableFiles.Values).Distinct()
                .SelectMany(f => f.Pending.Select(c => c.Sequence))
                .Concat(_pendingDirectoryChanges.Select(c => c.Sequence)));

            var files = new Dictionary<string, SimulatedFile>(_durableFiles, StringComparer.Ordinal);
            var directories = new HashSet<string>(_durableDirectories, StringComparer.Ordinal);
            foreach (var group in _pendingDirectoryChanges.GroupBy(c => c.Directory, StringComparer.Ordinal))
            {
                var changes = group.ToList();
                var survive = policy.ChooseDirectoryChanges(changes);
                for (var i = 0; i < changes.Count; i++)
                {
                    if (survive[i])
                    {
                        changes[i].ApplyTo(files, directories);
                    }
                }
            }

            var images = new List<(string Path, FileImage Image)>();
            foreach (var (path, file) in files.OrderBy(f => f.Value.Id))
            {
                if (InSurvivingDirectory(path, directories))
                {
                    images.Add((path, file.AfterPowerLoss(policy)));
                }
            }

            return FromImages(seed ?? unchecked((Seed * 31) + policy.Seed), directories.Where(d => InSurvivingDirectory(d, directories)), images);
        }
    }

    /// <summary>A copy of the machine as a power loss that kept everything would leave it, seeded with <paramref name="seed"/>.</summary>
    public CrashFileSystem Copy(int seed) => AfterPowerLoss(new PowerLossPolicy(DamageModel.KeepAll, 0), seed);

    /// <summary>The durable bytes of every file that exists now, by path (for tests of the simulator).</summary>
    public IReadOnlyDictionary<string, byte[]> DurableContents()
    {
        lock (_lock)
        {
            return _durableFiles.ToDictionary(f => f.Key, f =>
            {
                var bytes = new byte[f.Value.Durable.Length];
                f.Value.Durable.WrittenBytes.CopyTo(bytes);
                return bytes;
            }, StringComparer.Ordinal);
        }
    }

    /// <summary>A simulator whose disk holds exactly <paramref name="files"/>, all durable.</summary>
    public static CrashFileSystem FromImages(int seed, IEnumerable<string> directories, IEnumerable<(string Path, FileImage Image)> files)
    {
        var fs = new CrashFileSystem(seed, [.. directories]);
        foreach (var (path, image) in files)
        {
            var file = new SimulatedFile(fs._nextFileId++, path, image);
            fs._files[path] = file;
            fs._durableFiles[path] = file;
            using var current = fs._memory.Open(path, FileOpenMode.CreateNew);
            current.Write(0, image.WrittenBytes);
            current.SetLength(image.Length);
        }

        return fs;
    }

    private static bool InSurvivingDirectory(string path, HashSet<string> directories)
    {
        for (var d = ParentOf(path); d != "/"; d = ParentOf(d))
        {
            if (!directories.Contains(d))
            {
                return false;
            }
        }

        return true;
    }
}
