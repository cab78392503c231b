using System.Text;

namespace Voron.SqliteVfs.Vfs;

/// <summary>What a SQLite database on this VFS may be called: a page file name in the store.</summary>
internal static class DatabaseNames
{
    /// <summary>
    /// V12: the directory part of every database's full pathname (xFullPathname): a directory of
    /// the store that is never created, so the full pathname can name no OS file. A tool that
    /// deletes a database by deleting its file (EF Core's EnsureDeleted) fails with this text in
    /// its message instead of deleting anything.
    /// </summary>
    public const string FullPathDirectory = "(SQLite databases of this store live inside its data file, not as files)";

    /// <summary>The prefix of the full pathnames of a store's databases: its directory, then <see cref="FullPathDirectory"/>.</summary>
    public static string FullPathPrefix(string storeDirectory) =>
        Path.Join(storeDirectory, FullPathDirectory) + Path.DirectorySeparatorChar;

    /// <summary>Room left for the suffixes SQLite appends to a database name (-journal, -wal, -mj...).</summary>
    public const int MaxBytes = PageFile.MaxNameBytes - 16;

    /// <summary>Null when <paramref name="name"/> is a valid database name, else why not.</summary>
    public static string? Problem(string? name)
    {
        if (string.IsNullOrEmpty(name))
        {
            return "the database name is empty; give one, e.g. \"Data Source=orders\"";
        }

        if (name.Contains('/', StringComparison.Ordinal) || name.Contains('\\', StringComparison.Ordinal))
        {
            return $"the database name '{name}' contains a path separator; databases live inside the store, so give a plain name such as \"orders\"";
        }

        if (name.Any(char.IsControl))
        {
            return $"the database name '{name}' contains a control character";
        }

        if (name.EndsWith("-journal", StringComparison.Ordinal) || name.EndsWith("-wal", StringComparison.Ordinal) || name.EndsWith("-shm", StringComparison.Ordinal))
        {
            return $"the database name '{name}' ends like one of SQLite's journal files (-journal, -wal)";
        }

        return Encoding.UTF8.GetByteCount(name) > MaxBytes ? $"the database name '{name}' is longer than {MaxBytes} UTF-8 bytes" : null;
    }

    public static void Validate(string? name)
    {
        if (Problem(name) is { } problem)
        {
            throw new ArgumentException($"Vfs=voron: {problem}.", nameof(name));
        }
    }

    /// <summary>Names SQLite derives for its journals (super-journals are "-mj" and random digits), which never exist on this VFS (V11).</summary>
    public static bool IsJournalName(string name) =>
        name.EndsWith("-journal", StringComparison.Ordinal) || name.EndsWith("-wal", StringComparison.Ordinal) ||
        name.EndsWith("-shm", StringComparison.Ordinal) || name.Contains("-mj", StringComparison.Ordinal);
}
