namespace Voron.Testing;

/// <summary>The repository a test runs from, for tests that read its files (docs, sources, samples).</summary>
internal static class RepositoryRoot
{
    /// <summary>The first directory at or above the test assembly that holds <c>Voron.slnx</c>.</summary>
    public static string Find()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory != null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Voron.slnx")))
            {
                return directory.FullName;
            }
        }

        throw new DirectoryNotFoundException($"No Voron.slnx in {AppContext.BaseDirectory} or any directory above it: the repository root was not found.");
    }
}
