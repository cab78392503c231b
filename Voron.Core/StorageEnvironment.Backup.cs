using Voron.Backup;
using Voron.Platform;

namespace Voron;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Copies a consistent snapshot of the whole store (trees, page files, documents, SQLite
    /// databases) into <paramref name="destinationDirectory"/> while readers and writers go on.
    /// The copy is written into the directory and verified; the manifest (<c>voron.backup</c>)
    /// that makes it a backup is written last (BK1): a cancelled or failed backup leaves no
    /// manifest and deletes what it wrote. Refuses a destination that holds files.
    /// </summary>
    public Task<BackupResult> BackupAsync(string destinationDirectory, BackupOptions? options = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(destinationDirectory);
        ThrowIfUnusable();
        var destination = _options.InMemory ? destinationDirectory : System.IO.Path.GetFullPath(destinationDirectory);
        options ??= new BackupOptions();
        return Task.Run(() => SnapshotCopy.Run(this, destination, options, cancellationToken), cancellationToken);
    }

    /// <summary>
    /// Makes a new store in <paramref name="destinationDirectory"/> from the backup in
    /// <paramref name="backupDirectory"/>, replaying archived journal files on top when
    /// <see cref="RestoreOptions.JournalArchiveDirectory"/> is set. Refuses a destination that is
    /// not empty or that a process has open.
    /// </summary>
    public static Task<RestoreResult> RestoreAsync(string backupDirectory, string destinationDirectory, RestoreOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(backupDirectory);
        ArgumentException.ThrowIfNullOrWhiteSpace(destinationDirectory);
        var defaults = StorageEnvironmentOptions.ForDirectory(destinationDirectory);
        return RestoreCoreAsync(defaults.FileSystem, System.IO.Path.GetFullPath(backupDirectory), System.IO.Path.GetFullPath(destinationDirectory), options,
            defaults.MaxDataFileSize, cancellationToken);
    }

    /// <summary>As the public overload, over <paramref name="fileSystem"/> (in-memory stores and the crash simulator); the restored store may grow to <paramref name="maxDataFileSize"/> while replaying.</summary>
    internal static Task<RestoreResult> RestoreCoreAsync(IFileSystem fileSystem, string backupDirectory, string destinationDirectory, RestoreOptions? options,
        long maxDataFileSize, CancellationToken cancellationToken)
    {
        options ??= new RestoreOptions();
        var archive = options.JournalArchiveDirectory != null && fileSystem is Platform.Posix.PosixFileSystem or Platform.Portable.PortableFileSystem
            ? System.IO.Path.GetFullPath(options.JournalArchiveDirectory)
            : options.JournalArchiveDirectory;
        return Task.Run(() =>
        {
            var resolved = options.Resolve(destinationDirectory, archive, out var key); // the provider, once per restore
            try
            {
                return PointInTimeRestore.Run(fileSystem, backupDirectory, destinationDirectory, resolved, maxDataFileSize, cancellationToken);
            }
            finally
            {
                Sealing.UserKey.Clear(key); // SL10
            }
        }, cancellationToken);
    }

    /// <summary>The store's id (its header's StoreId), which binds its journal records.</summary>
    internal ulong StoreId => Journal.StoreId;
}
