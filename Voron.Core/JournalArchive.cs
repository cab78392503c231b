using Voron.Backup;
using Voron.Journal;
using Voron.Platform;

namespace Voron;

/// <summary>
/// The directory <see cref="StorageEnvironmentOptions.JournalArchiveDirectory"/> fills with the
/// store's completed journal files: with a full backup, every transaction since it, for
/// <see cref="StorageEnvironment.RestoreAsync"/> to replay to any point.
/// </summary>
/// <example>
/// <code>
/// var backup = await env.BackupAsync("/backups/2026-11-27", cancellationToken: ct);
/// JournalArchive.Prune("/backups/journal", backup.Directory); // files older than the backup are no longer needed
/// </code>
/// </example>
public static class JournalArchive
{
    /// <summary>
    /// Deletes the archived journal files that hold only transactions the backup in
    /// <paramref name="backupDirectory"/> already contains (and the compaction notes of stores
    /// that ended before them); returns how many journal files were deleted. Keep the
    /// files older than the oldest backup you may still restore from.
    /// </summary>
    public static int Prune(string archiveDirectory, string backupDirectory)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(archiveDirectory);
        ArgumentException.ThrowIfNullOrWhiteSpace(backupDirectory);
        var fileSystem = StorageEnvironmentOptions.ForDirectory(archiveDirectory).FileSystem;
        return PruneCore(fileSystem, Path.GetFullPath(archiveDirectory), Path.GetFullPath(backupDirectory));
    }

    /// <summary>
    /// What the archive directory says of its shipping (its state file, <c>voron.shipped</c>, which
    /// the store's shipper writes after each upload, SH4): the last journal file and transaction
    /// stored in the destination, and the archived files after it, still to ship. Reads only the
    /// directory: no network call, and it works while the store is open. Null when the directory
    /// holds no readable state file (nothing ships from it, or it was never started).
    /// </summary>
    public static ArchiveShippedState? ReadShippedState(string archiveDirectory)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(archiveDirectory);
        if (Archive.ArchiveShipper.ReadShipped(archiveDirectory) is not { } state)
        {
            return null;
        }

        var (files, bytes) = Archive.ArchiveShipper.Pending(archiveDirectory, state.File);
        return new ArchiveShippedState(Archive.ArchiveKeys.Lineage(state.Lineage), state.File, state.Transaction, files, bytes);
    }

    /// <summary>
    /// JA7. Prune deletes only archived files numbered below the backup manifest's journal file
    /// (where the transaction after the backup's snapshot starts): they hold only transactions the
    /// backup holds; and the compaction notes (JA9) of stores whose last file is below it, which
    /// only a restore of an older backup reads. A store that ships its archive
    /// (StorageEnvironmentOptions.ArchiveDestination) keeps every file not yet shipped (SH4). The manifest is validated first (a directory
    /// without one is not a backup); a compacted backup is refused. Whether the archive is the same
    /// store's is not checked here (restore checks it: JA6).
    /// </summary>
    internal static int PruneCore(IFileSystem fileSystem, string archiveDirectory, string backupDirectory)
    {
        var manifest = BackupManifest.Read(fileSystem, backupDirectory);
        if (manifest.Compacted)
        {
            throw new InvalidOperationException(
                $"The backup in '{backupDirectory}' is compacted: the archive cannot be replayed onto it, so it says nothing about which archived files are no longer needed.");
        }

        var shipped = Archive.ArchiveShipper.ReadState(archiveDirectory, lineage: null) ?? long.MaxValue; // SH4: unshipped files stay
        var deleted = 0;
        foreach (var number in JournalFiles.List(fileSystem, archiveDirectory))
        {
            if (number >= manifest.JournalFile || number > shipped)
            {
                break;
            }

            fileSystem.DeleteFile(JournalFiles.PathOf(archiveDirectory, number));
            deleted++;
        }

        var notes = ArchivedCompaction.List(fileSystem, archiveDirectory).Where(n => n.SourceLastFile < manifest.JournalFile).ToList();
        foreach (var note in notes)
        {
            fileSystem.DeleteFile(ArchivedCompaction.PathOf(archiveDirectory, note.SourceLastFile));
        }

        if (deleted + notes.Count > 0)
        {
            fileSystem.SyncDirectory(archiveDirectory);
        }

        return deleted;
    }
}
