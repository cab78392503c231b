namespace Voron.LoadTests.Measurement;

/// <summary>
/// The baseline a backup is compared with: <c>cp</c> of the files of a closed store that a backup
/// carries (the data file and the two header copies; not the journal, which a clean close left
/// with nothing the data file lacks, nor the lock file), then <c>sync</c> of every copied file and
/// of the copy's directory (coreutils' <c>sync FILE...</c> fsyncs each), so the copy is durable
/// when the clock stops, as a backup's is.
/// </summary>
internal static class PlainCopy
{
    private static readonly string[] StoreFiles = ["voron.data", "headers.one", "headers.two"];

    /// <summary>Whether both tools are on the PATH; when not, the experiment reports it and skips the baseline.</summary>
    public static bool Available => Find("cp") != null && Find("sync") != null;

    /// <summary>Copies <paramref name="source"/> to <paramref name="destination"/> (which must not exist) and syncs the copy.</summary>
    public static void CopyAndSync(string source, string destination)
    {
        Directory.CreateDirectory(destination);
        var files = StoreFiles.Select(name => Path.Combine(source, name)).Where(File.Exists);
        Run(Find("cp")!, files.Append(destination));
        var paths = Directory.EnumerateFiles(destination, "*", SearchOption.AllDirectories)
            .Concat(Directory.EnumerateDirectories(destination, "*", SearchOption.AllDirectories))
            .Append(destination)
            .ToList();
        Run(Find("sync")!, paths);
    }

    /// <summary>
    /// <c>cp -R</c> of the directory <paramref name="source"/> (every file under it) to
    /// <paramref name="destination"/> (which must not exist), then <c>sync</c> of every copied file
    /// and directory: the replicate experiment's baseline for a restore of the same bytes.
    /// </summary>
    public static void CopyTreeAndSync(string source, string destination)
    {
        Run(Find("cp")!, ["-R", source, destination]);
        var paths = Directory.EnumerateFiles(destination, "*", SearchOption.AllDirectories)
            .Concat(Directory.EnumerateDirectories(destination, "*", SearchOption.AllDirectories))
            .Append(destination)
            .ToList();
        Run(Find("sync")!, paths);
    }

    /// <summary>The full path of <paramref name="tool"/> on the PATH, or null.</summary>
    internal static string? Find(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "")
        .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Select(directory => Path.Combine(directory, tool))
        .FirstOrDefault(File.Exists);

    private static void Run(string tool, IEnumerable<string> arguments)
    {
        var start = new ProcessStartInfo(tool) { RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{tool} did not start.");
        var errors = process.StandardError.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{tool} exited with {process.ExitCode}: {errors.Trim()}");
        }
    }
}
