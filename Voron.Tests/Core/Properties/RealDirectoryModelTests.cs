using Voron.Tests.Core.Platform;

namespace Voron.Tests.Core.Properties;

/// <summary>
/// Model-based, on real files: random writes against a store in a real directory and against a
/// plain dictionary, compared after reopens, recoveries (close without flush), data-file flushes
/// and scans, on each real file system (<see cref="RealFileSystemTests.FileSystems"/>). Long-lived
/// read transactions are kept across many commits, so the data file grows under them: on the
/// portable file system that maps the file anew (PortableMapping, MM1), and the pages the readers
/// hold must still read as they were. VORON_PORTABLE_FULL=1 runs ten times the steps; replay with
/// VORON_SEED.
/// </summary>
public sealed class RealDirectoryModelTests(ITestOutputHelper output)
{
    private const string TreeName = "model";

    [Theory]
    [MemberData(nameof(RealFileSystemTests.FileSystems), MemberType = typeof(RealFileSystemTests))]
    public void Random_writes_match_a_dictionary_across_growth_reopens_recoveries_and_readers_held_across_growth(string fileSystem)
    {
        var seed = TestSeed.Next(output, $"{nameof(RealDirectoryModelTests)} ({fileSystem})");
        var random = new Random(seed);
        var transactions = CrashBudget.PortableFull ? 4000 : 400;
        using var directory = new TempDirectory();
        var committed = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        var readers = new List<(ReadTransaction Read, Dictionary<string, byte[]> Expected, int Until)>();
        var env = Open(directory.Path, fileSystem);
        try
        {
            for (var t = 0; t < transactions; t++)
            {
                var working = new Dictionary<string, byte[]>(committed, StringComparer.Ordinal);
                using (var tx = env.BeginWrite())
                {
                    var tree = tx.CreateTree(TreeName);
                    for (var i = random.Next(1, 40); i > 0; i--)
                    {
                        var key = $"k{random.Next(3000):D5}";
                        if (random.Next(5) == 0)
                        {
                            tree.Delete(System.Text.Encoding.UTF8.GetBytes(key));
                            working.Remove(key);
                        }
                        else
                        {
                            var value = new byte[random.Next(10) == 0 ? random.Next(4000, 40_000) : random.Next(1, 600)];
                            random.NextBytes(value);
                            tree.Put(System.Text.Encoding.UTF8.GetBytes(key), value);
                            working[key] = value;
                        }
                    }

                    if (random.Next(12) == 0)
                    {
                        continue; // rollback
                    }

                    tx.Commit();
                    committed = working;
                }

                if (random.Next(25) == 0)
                {
                    readers.Add((env.BeginRead(), new Dictionary<string, byte[]>(committed, StringComparer.Ordinal), t + random.Next(5, 120)));
                }

                foreach (var reader in readers.Where(r => r.Until <= t).ToList())
                {
                    Compare(reader.Read, reader.Expected, $"seed {seed}, reader held until transaction {t}");
                    reader.Read.Dispose();
                    readers.Remove(reader);
                }

                switch (random.Next(60))
                {
                    case 0 when readers.Count == 0:
                        env.Dispose();
                        env = Open(directory.Path, fileSystem);
                        break;
                    case 1 when readers.Count == 0:
                        env.CloseWithoutFlush(); // the next open recovers from the journal
                        env = Open(directory.Path, fileSystem);
                        break;
                    case 2 or 3 or 4:
                        env.FlushToDataFile();
                        break;
                }
            }

            foreach (var reader in readers)
            {
                Compare(reader.Read, reader.Expected, $"seed {seed}, reader held to the end");
                reader.Read.Dispose();
            }

            readers.Clear();
            env.CloseWithoutFlush();
            env = Open(directory.Path, fileSystem);
            using (var read = env.BeginRead())
            {
                Compare(read, committed, $"seed {seed}, after the last recovery");
            }

            env.CheckIntegrity();
        }
        finally
        {
            readers.ForEach(r => r.Read.Dispose());
            env.Dispose();
        }

        output.WriteLine($"{transactions} transactions, {committed.Count} keys, data file {new FileInfo(Path.Combine(directory.Path, "voron.data")).Length:N0} bytes");
    }

    private static StorageEnvironment Open(string directory, string fileSystem)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.UsePortableFileSystem = fileSystem == "portable";
        options.JournalFileSize = 256 * 1024;
        options.FlushThresholdBytes = 256 * 1024;
        options.FlushInterval = TimeSpan.FromMilliseconds(20);
        return StorageEnvironment.Open(options);
    }

    private static void Compare(ReadTransaction read, Dictionary<string, byte[]> expected, string where)
    {
        var tree = read.OpenTree(TreeName);
        Assert.True((tree?.Count ?? 0) == expected.Count, $"{where}: {tree?.Count ?? 0} keys, the model has {expected.Count}");
        foreach (var (key, value) in expected)
        {
            Assert.True(tree!.TryGet(System.Text.Encoding.UTF8.GetBytes(key), out var actual) && actual.SequenceEqual(value), $"{where}: key {key} differs");
        }
    }
}
