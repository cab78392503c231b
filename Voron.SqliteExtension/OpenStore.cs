using Voron.Documents;
using Voron.SqliteVfs;
using Voron.SqliteVfs.Vfs;

namespace Voron.SqliteExtension;

/// <summary>
/// The one store the extension serves (a process opens a store once; a second voron_open is
/// refused until voron_close): its environment, its document store if it has documents, and the
/// VFS "voron" registered over them with voron_docs bound.
/// </summary>
internal static class OpenStore
{
    /// <summary>The VFS name the shell's <c>.open --vfs voron</c> names.</summary>
    public const string VfsName = "voron";

    /// <summary>The tree every document store has (Voron.Documents' "@docs").</summary>
    private const string DocumentsTree = "@docs";

    private static readonly Lock s_sync = new();

    // Guarded by s_sync: the open store, all null when none is.
    private static string? s_path;
    private static StorageEnvironment? s_environment;
    private static DocumentStore? s_documents;
    private static NativeVfs? s_vfs;

    /// <summary>
    /// Opens the store in <paramref name="path"/>, with the key in <paramref name="keyFile"/> when it
    /// is encrypted (Voron.Core's Sealing/EncryptionKeyFile.cs: the forms the voron tool's
    /// --key-file takes), and registers Vfs=voron over it; returns what it found.
    /// </summary>
    public static string Open(string? path, string? keyFile = null)
    {
        if (string.IsNullOrWhiteSpace(path))
        {
            throw new ExtensionException("voron_open(path): path must be the store's directory, as text.");
        }

        lock (s_sync)
        {
            if (s_path is not null)
            {
                throw new ExtensionException($"voron: the store '{s_path}' is open; call voron_close() first (one store at a time).");
            }

            var full = RequireStore(path);
            var options = StorageEnvironmentOptions.ForDirectory(full);
            options.EncryptionKey = ReadKey(keyFile);
            StorageEnvironment? environment = null;
            DocumentStore? documents = null;
            try
            {
                environment = StorageEnvironment.Open(options);
                var (databases, hasDocuments) = Contents(environment);
                documents = hasDocuments ? DocumentStore.Open(environment) : null;
                var collections = documents?.GetStatistics().Collections.Count ?? 0;
                var vfs = VoronSqlite.RegisterNative(environment, VfsName, options: null);
                SqliteVfs.Documents.DocumentHook.Attach(vfs, documents); // voron_docs on every connection, bound to the store's documents if it has any

                (s_path, s_environment, s_documents, s_vfs) = (full, environment, documents, vfs);
                return $"opened {full}: {Count(databases, "SQLite database")}, {Count(collections, "collection")}";
            }
            catch (Exception e)
            {
                documents?.Dispose();
                environment?.Dispose();
                throw e switch
                {
                    StoreLockedException => new ExtensionException($"voron: {e.Message}", e),
                    CorruptionException => new ExtensionException($"voron: the store '{full}' is damaged: {e.Message} (voron check tells more)", e),
                    EncryptionKeyException => new ExtensionException($"voron: {e.Message.Replace("(the voron tool: --key-file or VORON_KEY_FILE)",
                        "(voron_open(path, key_file))", StringComparison.Ordinal)}", e),
                    _ => new ExtensionException($"voron: opening '{full}' failed: {e.Message}", e),
                };
            }
        }
    }

    /// <summary>
    /// Unregisters Vfs=voron and closes the store. Connections still on a database of the VFS
    /// should be closed first (the shell: <c>.open :memory:</c>); their next read fails cleanly.
    /// </summary>
    public static string Close()
    {
        lock (s_sync)
        {
            if (s_path is null)
            {
                throw new ExtensionException("voron_close(): no store is open.");
            }

            var path = s_path;
            s_vfs?.Unregister();
            s_documents?.Dispose();
            s_environment?.Dispose();
            (s_path, s_environment, s_documents, s_vfs) = (null, null, null, null);
            return $"closed {path}";
        }
    }

    /// <summary>The key in <paramref name="keyFile"/>, or null when none is given; a file that holds no key is the error.</summary>
    private static byte[]? ReadKey(string? keyFile)
    {
        if (keyFile is null)
        {
            return null;
        }

        try
        {
            return Voron.Sealing.EncryptionKeyFile.Read(keyFile);
        }
        catch (Exception e) when (e is FormatException or ArgumentException or IOException or UnauthorizedAccessException)
        {
            throw new ExtensionException($"voron_open(path, key_file): {e.Message.Replace(" (Parameter 'the key file')", "", StringComparison.Ordinal)}", e);
        }
    }

    /// <summary>The full path of <paramref name="path"/>, which must be a directory holding a store (so a typo never creates one).</summary>
    private static string RequireStore(string path)
    {
        var full = Path.GetFullPath(path);
        if (!Directory.Exists(full))
        {
            throw new ExtensionException($"voron: no store at '{path}': the directory does not exist.");
        }

        if (!File.Exists(Path.Combine(full, "voron.data")) && !File.Exists(Path.Combine(full, "headers.one")) &&
            !File.Exists(Path.Combine(full, "headers.two")))
        {
            throw new ExtensionException($"voron: '{path}' is not a Voron store: it has no voron.data and no header file (headers.one, headers.two).");
        }

        if (File.Exists(Path.Combine(full, "voron.backup")))
        {
            // Opening a backup writes to it, after which a point-in-time restore refuses it (BK1, PointInTimeRestore).
            throw new ExtensionException($"voron: '{path}' is a backup (it holds voron.backup): opening it would change it. Restore it into a new directory first (voron restore <backup> <directory>).");
        }

        return full;
    }

    /// <summary>The SQLite databases (page files) the store holds, and whether it holds documents.</summary>
    private static (int Databases, bool HasDocuments) Contents(StorageEnvironment environment)
    {
        using var read = environment.BeginRead();
        return (read.GetPageFileNames().Count, read.GetTreeNames().Contains(DocumentsTree));
    }

    private static string Count(int count, string noun) => count == 1 ? $"1 {noun}" : $"{count} {noun}s";
}
