using Voron.Documents;

namespace Voron.Tool;

/// <summary>
/// How commands find and open a store: the directory must exist and look like a store before
/// anything is opened (so a typo never creates an empty store), and every failure to open becomes
/// a message a person understands (<see cref="VoronTool.Describe"/>).
/// </summary>
internal static class StoreAccess
{
    /// <summary>The tree every document store has (Voron.Documents' "@docs").</summary>
    public const string DocumentsTree = "@docs";

    /// <summary>The manifest that makes a directory a backup (Voron.Core's Backup/BackupManifest.cs, BK1).</summary>
    public const string BackupManifest = "voron.backup";

    /// <summary>
    /// Throws a usage error unless <paramref name="path"/> is a directory holding a store (its data
    /// file or a header copy), and, unless <paramref name="allowBackup"/>, one that is not a backup:
    /// opening a backup writes to it (the lock record, recovery, any change), after which a
    /// point-in-time restore refuses it. Returns the full path.
    /// </summary>
    public static string RequireStore(string path, bool allowBackup = false)
    {
        var full = Path.GetFullPath(path);
        if (!Directory.Exists(full))
        {
            throw new ToolException(ExitCodes.Usage,
                $"No store at '{path}': the directory does not exist. Check the path (a store is the directory the application opened).");
        }

        if (!File.Exists(Path.Combine(full, "voron.data")) && !File.Exists(Path.Combine(full, "headers.one")) &&
            !File.Exists(Path.Combine(full, "headers.two")))
        {
            throw new ToolException(ExitCodes.Usage,
                $"'{path}' is not a Voron store: it has no voron.data and no header file (headers.one, headers.two).");
        }

        if (!allowBackup && File.Exists(Path.Combine(full, BackupManifest)))
        {
            throw new ToolException(ExitCodes.Usage,
                $"'{path}' is a backup (it holds {BackupManifest}): opening it would change it, and a point-in-time restore would refuse it afterwards. " +
                "Restore it into a new directory and work there: voron restore <backup> <new directory>. voron info reads a backup without changing it.");
        }

        return full;
    }

    /// <summary>
    /// True when <paramref name="e"/> means the store's bytes are damaged (exit code 1), as
    /// opposed to a store that cannot be opened for another reason (held, newer, unreadable).
    /// </summary>
    public static bool IsDamage(Exception e) => e is CorruptionException or InvalidDataException;

    /// <summary>
    /// True for what an integrity check throws for a broken rule: damage (<see cref="IsDamage"/>)
    /// or the <see cref="InvalidOperationException"/> that StorageEnvironment.CheckIntegrity and
    /// DocumentStore.CheckIntegrity throw for a violated invariant. Anything else (a disposed
    /// object, an I/O error, a bug) says nothing about the store's bytes.
    /// </summary>
    public static bool IsViolation(Exception e) =>
        IsDamage(e) || (e.GetType() == typeof(InvalidOperationException));

    /// <summary>Opens the store in <paramref name="path"/> (which must exist, <see cref="RequireStore"/>), with the key file's key if one was given.</summary>
    public static StorageEnvironment OpenEnvironment(string path) => StorageEnvironment.Open(Options(RequireStore(path)));

    /// <summary>The options of the store in <paramref name="directory"/>, with the key of <c>--key-file</c> or <c>VORON_KEY_FILE</c> (<see cref="StoreKeyFile"/>).</summary>
    public static StorageEnvironmentOptions Options(string directory)
    {
        var options = StorageEnvironmentOptions.ForDirectory(directory);
        options.EncryptionKey = StoreKeyFile.Read();
        return options;
    }

    /// <summary>True when the store holds a document store (Voron.Documents' trees).</summary>
    public static bool HasDocuments(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return read.GetTreeNames().Contains(DocumentsTree);
    }

    /// <summary>The document store over <paramref name="environment"/>, or null when it holds none (nothing is created).</summary>
    public static DocumentStore? OpenDocumentsIfAny(StorageEnvironment environment) =>
        HasDocuments(environment) ? DocumentStore.Open(environment) : null;
}
