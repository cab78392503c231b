using Voron.Archive;
using Voron.Backup;
using Voron.Header;

namespace Voron;

/// <summary>
/// A store's archive in an <see cref="IArchiveDestination"/>: backups uploaded as snapshots beside
/// the journal files the store ships (<see cref="StorageEnvironmentOptions.ArchiveDestination"/>),
/// restores from them to a transaction or a time, and retention. Objects live under the store's id
/// (its lineage): docs/object-storage.md shows the layout.
/// </summary>
/// <example>
/// <code>
/// var destination = new DirectoryArchiveDestination("/mnt/offsite/voron");
/// var backup = await env.BackupAsync("/backups/2026-12-07", cancellationToken: ct);
/// await ObjectArchive.UploadSnapshotAsync(destination, backup.Directory, ct);
///
/// // Elsewhere, later: the newest snapshot plus the shipped journal, up to a time.
/// var restored = await ObjectArchive.RestoreAsync(destination, lineage: "3f2a9c0d11e47b58", "/restores/store",
///     new RestoreOptions { ToTime = DateTimeOffset.Parse("2026-12-07T10:15:00Z") }, cancellationToken: ct);
/// await ObjectArchive.PruneAsync(destination, "3f2a9c0d11e47b58", keepSnapshots: 2, ct);
/// </code>
/// </example>
public static class ObjectArchive
{
    // OA1. a snapshot is complete iff its manifest object (voron.backup) is there: it is uploaded
    //      after every other file of the backup, and deleted first by retention.
    // OA2. a restore downloads the newest complete snapshot that the target does not precede, then
    //      the lineage's journal objects from the manifest's file on, in number order, checking
    //      each object (AO2) and the chain (a journal object's Before is its predecessor's After,
    //      AO1) before a byte of it is used; it stops at the first number missing (the restore then
    //      says how far the log goes, JA6) and past the target. Then StorageEnvironment.RestoreAsync
    //      does the replay, as from a local archive (JA5..JA10, BK8).
    // OA3. a restored store is a new store (BK4), so a new lineage: the restore records the fork
    //      (<new lineage>/fork: parent lineage, fork transaction) and the new store ships under its
    //      own id, never into its parent's lineage (AK2).
    // OA4. retention deletes only what a kept snapshot covers: snapshots older than the newest
    //      keepSnapshots, and journal objects numbered below the oldest kept snapshot's journal file.

    private const string ManifestName = BackupManifest.FileName;

    /// <summary>
    /// Uploads the backup in <paramref name="backupDirectory"/> (made by <see cref="StorageEnvironment.BackupAsync"/>)
    /// under its source store's lineage, its manifest last (OA1); returns the snapshot's transaction.
    /// Uploading the same backup again is accepted; another backup of the same transaction is refused (AO3).
    /// </summary>
    public static async Task<long> UploadSnapshotAsync(IArchiveDestination destination, string backupDirectory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentException.ThrowIfNullOrWhiteSpace(backupDirectory);
        var directory = Path.GetFullPath(backupDirectory);
        var manifest = BackupManifest.Read(StorageEnvironmentOptions.ForDirectory(directory).FileSystem, directory);
        if (manifest.Compacted)
        {
            throw new InvalidOperationException(
                $"The backup in '{directory}' is compacted: its pages have new numbers, so the shipped journal cannot be replayed onto it. Upload a plain backup.");
        }

        var prefix = ArchiveKeys.Snapshot(manifest.SourceStoreId, manifest.SnapshotTxId);
        var header = new ArchiveObjectHeader(ArchiveObjectKind.SnapshotFile, manifest.SourceStoreId, 0, manifest.SnapshotTxId, manifest.SnapshotTxId,
            manifest.SnapshotCommitTime, 0, ArchiveObjectHeader.NoHash, ArchiveObjectHeader.NoHash, 0);
        var files = Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(directory, path).Replace(Path.DirectorySeparatorChar, '/'))
            .Where(name => name != ManifestName)
            .Order(StringComparer.Ordinal)
            .Append(ManifestName); // OA1
        foreach (var name in files)
        {
            await ArchiveUpload.PutFileAsync(destination, prefix + name, Path.Combine(directory, name), header, cancellationToken).ConfigureAwait(false);
        }

        return manifest.SnapshotTxId;
    }

    /// <summary>
    /// Restores lineage <paramref name="lineage"/> (the store id, 16 hex digits, as <see cref="StoreInfo.StoreId"/>
    /// shows it) from <paramref name="destination"/> into <paramref name="destinationDirectory"/>:
    /// the newest snapshot the target does not precede, then the shipped journal replayed up to
    /// <see cref="RestoreOptions.ToTransactionId"/> or <see cref="RestoreOptions.ToTime"/> (or as far as it goes).
    /// <see cref="RestoreOptions.JournalArchiveDirectory"/> must be null: the journal comes from the destination.
    /// Objects are downloaded next to <paramref name="destinationDirectory"/> and deleted afterwards.
    /// The restored store is a new lineage; its fork is recorded in the destination (OA3) unless
    /// <paramref name="recordFork"/> is false (a destination this process may only read).
    /// </summary>
    public static async Task<RestoreResult> RestoreAsync(IArchiveDestination destination, string lineage, string destinationDirectory,
        RestoreOptions? options = null, bool recordFork = true, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentException.ThrowIfNullOrWhiteSpace(destinationDirectory);
        var id = ParseLineage(lineage);
        options ??= new RestoreOptions();
        if (options.JournalArchiveDirectory != null)
        {
            throw new ArgumentException("RestoreOptions.JournalArchiveDirectory must be null here: the journal is read from the destination.", nameof(options));
        }

        var target = Path.GetFullPath(destinationDirectory);
        var work = target.TrimEnd(Path.DirectorySeparatorChar) + ".download-" + Guid.NewGuid().ToString("N")[..8];
        try
        {
            var backup = Path.Combine(work, "backup");
            var archive = Path.Combine(work, "journal");
            Directory.CreateDirectory(backup);
            Directory.CreateDirectory(archive);
            var snapshot = await ChooseSnapshotAsync(destination, id, options, cancellationToken).ConfigureAwait(false);
            await DownloadSnapshotAsync(destination, id, snapshot, backup, cancellationToken).ConfigureAwait(false);
            var manifest = BackupManifest.Read(StorageEnvironmentOptions.ForDirectory(backup).FileSystem, backup);
            await DownloadJournalAsync(destination, id, manifest.JournalFile, archive, options, cancellationToken).ConfigureAwait(false);
            var result = await StorageEnvironment.RestoreAsync(backup, target, new RestoreOptions
            {
                JournalArchiveDirectory = archive,
                ToTransactionId = options.ToTransactionId,
                ToTime = options.ToTime,
                Progress = options.Progress,
            }.WithKeyOf(options), cancellationToken).ConfigureAwait(false);
            if (recordFork && HeaderFile.ReadNewest(StorageEnvironmentOptions.ForDirectory(target).FileSystem, new StoreLayout(target)) is { } restored)
            {
                await ArchiveUpload.PutHeaderOnlyAsync(destination, ArchiveKeys.Fork(restored.StoreId), new ArchiveObjectHeader(ArchiveObjectKind.ForkNote,
                    restored.StoreId, 0, 0, result.TransactionId, 0, 0, ArchiveObjectHeader.NoHash, ArchiveObjectHeader.NoHash, id), cancellationToken).ConfigureAwait(false);
            }

            return result;
        }
        finally
        {
            if (Directory.Exists(work))
            {
                Directory.Delete(work, recursive: true);
            }
        }
    }

    /// <summary>
    /// Retention (OA4): deletes the snapshots of <paramref name="lineage"/> older than its newest
    /// <paramref name="keepSnapshots"/>, and the journal objects the oldest kept snapshot covers;
    /// returns how many objects were deleted. Nothing is deleted while fewer snapshots exist.
    /// </summary>
    public static async Task<int> PruneAsync(IArchiveDestination destination, string lineage, int keepSnapshots, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentOutOfRangeException.ThrowIfLessThan(keepSnapshots, 1);
        var id = ParseLineage(lineage);
        var snapshots = await ListSnapshotsAsync(destination, id, cancellationToken).ConfigureAwait(false);
        if (snapshots.Count <= keepSnapshots)
        {
            return 0;
        }

        var oldestKept = snapshots[^keepSnapshots];
        var manifest = await ReadManifestAsync(destination, id, oldestKept, cancellationToken).ConfigureAwait(false);
        var deleted = 0;
        foreach (var old in snapshots.Take(snapshots.Count - keepSnapshots))
        {
            var prefix = ArchiveKeys.Snapshot(id, old);
            await destination.DeleteAsync(prefix + ManifestName, cancellationToken).ConfigureAwait(false); // OA1: incomplete from here
            deleted++;
            await foreach (var item in destination.ListAsync(prefix, null, cancellationToken).ConfigureAwait(false))
            {
                await destination.DeleteAsync(item.Key, cancellationToken).ConfigureAwait(false);
                deleted++;
            }
        }

        var journalPrefix = ArchiveKeys.JournalPrefix(id);
        await foreach (var item in destination.ListAsync(journalPrefix, null, cancellationToken).ConfigureAwait(false))
        {
            if (ArchiveKeys.ParseNumber(item.Key.AsSpan(journalPrefix.Length)) is not { } number || number >= manifest.JournalFile)
            {
                break;
            }

            await destination.DeleteAsync(item.Key, cancellationToken).ConfigureAwait(false);
            deleted++;
        }

        return deleted;
    }

    /// <summary>The complete snapshots' transactions (OA1), ascending.</summary>
    internal static async Task<List<long>> ListSnapshotsAsync(IArchiveDestination destination, ulong lineage, CancellationToken cancellationToken)
    {
        var prefix = ArchiveKeys.SnapshotsPrefix(lineage);
        var found = new List<long>();
        await foreach (var item in destination.ListAsync(prefix, null, cancellationToken).ConfigureAwait(false))
        {
            var rest = item.Key.AsSpan(prefix.Length);
            if (rest.Length == 17 + ManifestName.Length && rest[16] == '/' && rest[17..].SequenceEqual(ManifestName) && ArchiveKeys.ParseNumber(rest) is { } tx)
            {
                found.Add(tx);
            }
        }

        found.Sort();
        return found;
    }

    private static async Task<long> ChooseSnapshotAsync(IArchiveDestination destination, ulong lineage, RestoreOptions options, CancellationToken cancellationToken)
    {
        var snapshots = await ListSnapshotsAsync(destination, lineage, cancellationToken).ConfigureAwait(false);
        for (var i = snapshots.Count - 1; i >= 0; i--)
        {
            var tx = snapshots[i];
            if (tx > options.ToTransactionId)
            {
                continue;
            }

            if (options.ToTime is { } time)
            {
                var header = await ArchiveUpload.ReadHeaderAsync(destination, ArchiveKeys.Snapshot(lineage, tx) + ManifestName, cancellationToken).ConfigureAwait(false);
                if (header is not { LastCommitTime: > 0 } known || known.LastCommitTime > time.ToUnixTimeMilliseconds())
                {
                    continue; // after the time, or not known to be before it: an older snapshot
                }
            }

            return tx;
        }

        throw new InvalidOperationException(
            $"{destination.Description} holds no complete snapshot of lineage {ArchiveKeys.Lineage(lineage)}" +
            (snapshots.Count > 0 ? " the target does not precede (or, for a time, known to be committed before it)" : "") +
            ": upload a backup with ObjectArchive.UploadSnapshotAsync, or check the lineage (the source store's id).");
    }

    internal static async Task DownloadSnapshotAsync(IArchiveDestination destination, ulong lineage, long snapshot, string directory, CancellationToken cancellationToken)
    {
        var prefix = ArchiveKeys.Snapshot(lineage, snapshot);
        await foreach (var item in destination.ListAsync(prefix, null, cancellationToken).ConfigureAwait(false))
        {
            var path = Path.Combine(directory, item.Key[prefix.Length..].Replace('/', Path.DirectorySeparatorChar));
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            var header = await ArchiveUpload.DownloadAsync(destination, item.Key, path, cancellationToken).ConfigureAwait(false) ??
                throw new IOException($"'{item.Key}' was listed in {destination.Description} and then could not be read: is retention running? Restore again.");
            CheckOwner(destination, item.Key, header, ArchiveObjectKind.SnapshotFile, lineage);
        }
    }

    /// <summary>OA2: the journal objects from file <paramref name="first"/> on, chained, up to the first gap or past the target.</summary>
    private static async Task DownloadJournalAsync(IArchiveDestination destination, ulong lineage, long first, string directory, RestoreOptions options,
        CancellationToken cancellationToken)
    {
        var prefix = ArchiveKeys.JournalPrefix(lineage);
        var previous = first > 1 ? await ArchiveUpload.ReadHeaderAsync(destination, ArchiveKeys.Journal(lineage, first - 1), cancellationToken).ConfigureAwait(false) : null;
        var expected = first;
        await foreach (var item in destination.ListAsync(prefix, first > 0 ? ArchiveKeys.Journal(lineage, first - 1) : null, cancellationToken).ConfigureAwait(false))
        {
            if (ArchiveKeys.ParseNumber(item.Key.AsSpan(prefix.Length)) != expected)
            {
                return; // a gap (or a stray key): the restore says how far the log goes (JA6)
            }

            var path = Journal.JournalFiles.PathOf(directory, expected);
            var header = await ArchiveUpload.DownloadAsync(destination, item.Key, path, cancellationToken).ConfigureAwait(false);
            if (header is not { } found)
            {
                return;
            }

            CheckOwner(destination, item.Key, found, ArchiveObjectKind.JournalFile, lineage);
            if (previous is { } before && !found.Before.AsSpan().SequenceEqual(before.After))
            {
                throw new CorruptionException(ArchiveUpload.Where(destination, item.Key), ArchiveObjectHeader.BeforeOffset,
                    $"AO1: the journal object does not continue file {expected - 1}'s (its Before is not that object's After): two different logs were " +
                    "shipped under one lineage");
            }

            previous = found;
            expected++;
            if (found.FirstTx > options.ToTransactionId || options.ToTime is { } time && found.LastCommitTime > time.ToUnixTimeMilliseconds())
            {
                return; // holds the record after the target: the replay stops in it
            }
        }
    }

    internal static async Task<BackupManifest> ReadManifestAsync(IArchiveDestination destination, ulong lineage, long snapshot, CancellationToken cancellationToken)
    {
        var key = ArchiveKeys.Snapshot(lineage, snapshot) + ManifestName;
        var temp = Path.GetTempFileName();
        try
        {
            _ = await ArchiveUpload.DownloadAsync(destination, key, temp, cancellationToken).ConfigureAwait(false) ??
                throw new IOException($"'{key}' was listed in {destination.Description} and then could not be read; prune again.");
            return BackupManifest.Decode(await File.ReadAllBytesAsync(temp, cancellationToken).ConfigureAwait(false), ArchiveUpload.Where(destination, key));
        }
        finally
        {
            File.Delete(temp);
        }
    }

    private static void CheckOwner(IArchiveDestination destination, string key, ArchiveObjectHeader header, ArchiveObjectKind kind, ulong lineage)
    {
        if (header.Kind != kind || header.Lineage != lineage)
        {
            throw new CorruptionException(ArchiveUpload.Where(destination, key), 0,
                $"AO2: the object is a {header.Kind} of lineage {ArchiveKeys.Lineage(header.Lineage)}, where a {kind} of lineage {ArchiveKeys.Lineage(lineage)} belongs");
        }
    }

    internal static ulong ParseLineage(string lineage)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(lineage);
        return lineage.Length == 16 && ArchiveKeys.ParseLineage(lineage) is { } id && id != 0
            ? id
            : throw new ArgumentException($"'{lineage}' is not a lineage: give the source store's id, 16 hex digits (StoreInfo.StoreId, `voron info`).", nameof(lineage));
    }
}
