using System.Globalization;

namespace Voron.Journal;

/// <summary>
/// Names of the files in a journal directory: <c>{number:D19}.journal</c> for journal files
/// (19 digits, so ordinal order is numeric order) and <c>{number:D19}.recycled</c> for spare files
/// released by <see cref="JournalWriter.ReleaseBefore"/> and waiting to become journal files again.
/// </summary>
internal static class JournalFiles
{
    public const string Extension = ".journal";
    public const string SpareExtension = ".recycled";

    public static string PathOf(string directory, long number) => Path.Combine(directory, Name(number, Extension));

    public static string SparePathOf(string directory, long number) => Path.Combine(directory, Name(number, SpareExtension));

    /// <summary>The journal file numbers in <paramref name="directory"/>, ascending.</summary>
    public static List<long> List(Platform.IFileSystem fileSystem, string directory) => ListNumbers(fileSystem, directory, Extension);

    /// <summary>
    /// A journal file number past <paramref name="floor"/> and past every journal file in
    /// <paramref name="directory"/> (none when it is null or missing): where a copy's journal
    /// starts so that it never reuses a number its source made or archived (BK9).
    /// </summary>
    public static long NumberPast(Platform.IFileSystem fileSystem, string? directory, long floor)
    {
        var listed = directory == null ? [] : List(fileSystem, directory);
        return Math.Max(floor, listed.Count > 0 ? listed[^1] : floor) + 1;
    }

    /// <summary>The spare file numbers in <paramref name="directory"/>, ascending.</summary>
    public static List<long> ListSpares(Platform.IFileSystem fileSystem, string directory) => ListNumbers(fileSystem, directory, SpareExtension);

    private static string Name(long number, string extension)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(number);
        return number.ToString("D19", CultureInfo.InvariantCulture) + extension;
    }

    private static List<long> ListNumbers(Platform.IFileSystem fileSystem, string directory, string extension)
    {
        var numbers = new List<long>();
        foreach (var path in fileSystem.ListFiles(directory, "*" + extension))
        {
            var name = Path.GetFileName(path);
            var stem = name[..^extension.Length];

            // Files of other names (an editor's backup, a file copied in by hand) are not the
            // journal's: leave them alone rather than guess.
            if (stem.Length == 19 && long.TryParse(stem, NumberStyles.None, CultureInfo.InvariantCulture, out var number))
            {
                numbers.Add(number);
            }
        }

        numbers.Sort();
        return numbers;
    }
}
