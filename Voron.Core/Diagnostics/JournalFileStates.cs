using Voron.Header;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Diagnostics;

/// <summary>
/// The journal files on disk and their state at the call (ST2): <c>active</c> is the writer's
/// current file; <c>needed</c> a file at or after the one the newest durable header names as the
/// recovery start (recovery reads it); <c>released</c> a file before that one, which the flusher
/// deletes (or archives) right after writing that header (J6, FL3).
/// </summary>
internal static class JournalFileStates
{
    public const string Active = "active";
    public const string Needed = "needed";
    public const string Released = "released";

    public static List<JournalFileStatistics> List(StorageEnvironment environment)
    {
        var fileSystem = environment.FileSystem;
        var directory = environment.Layout.JournalDirectory;
        var numbers = JournalFiles.List(fileSystem, directory);

        // Read after the listing: every listed file was created before, so none is above the
        // current file, and a header written meanwhile only turns needed files into released ones.
        var active = environment.Journal.CurrentFileNumber;
        var recoveryStart = HeaderFile.ReadNewest(fileSystem, environment.Layout)?.JournalFile ?? 0;
        return List(fileSystem, directory, numbers, active, recoveryStart);
    }

    /// <summary>
    /// The states of the journal files <paramref name="numbers"/> (listed from <paramref name="directory"/>)
    /// given the writer's current file (<paramref name="active"/>; null when no writer is known) and
    /// the recovery start the newest durable header names. A file deleted since the listing is left out.
    /// </summary>
    public static List<JournalFileStatistics> List(IFileSystem fileSystem, string directory, IReadOnlyList<long> numbers, long? active, long recoveryStart)
    {
        var files = new List<JournalFileStatistics>(numbers.Count);
        foreach (var number in numbers)
        {
            if (LengthOf(fileSystem, JournalFiles.PathOf(directory, number)) is not { } length)
            {
                continue; // released and deleted since the listing
            }

            var state = number == active ? Active : number >= recoveryStart ? Needed : Released;
            files.Add(new JournalFileStatistics(number, length, state));
        }

        return files;
    }

    private static long? LengthOf(IFileSystem fileSystem, string path)
    {
        try
        {
            using var file = fileSystem.Open(path, FileOpenMode.OpenExisting);
            return file.Length;
        }
        catch (FileNotFoundException)
        {
            return null;
        }
    }
}
