using Voron.Archive;
using Voron.Backup;
using Voron.Platform;

namespace Voron.Replication;

// Re-snapshot (ReplicaOptions.Resnapshot): a replica that cannot continue from its position is
// rebuilt from a snapshot in a directory beside it, which then replaces it. The first open of a
// replica builds it the same way. docs/object-storage.md, "Read replicas", says what it costs.
//
//   DIR                    the replica
//   DIR.rebuild/           the new replica while it is built (step 1)
//   DIR.rebuild-download/  the snapshot's files while they are downloaded (step 1)
//   DIR.rebuild-ready      the marker: DIR.rebuild is a complete replica (step 2)
//   DIR.rebuild-old/       the old replica, moved aside (steps 3-5)
//
// RR1. a replica is rebuilt only at a break a pass would stop at: the object at its position
//      checked without applying anything (ReplicaFollower.FindBreakAsync: missing while a later one
//      is there, damaged, off the chain, starting past the next transaction, or ending before its
//      header's LastTx: RE5; missing while a lineage forked from the followed one: RE6), or a store
//      that holds fewer transactions than its position says (RE4). A destination that cannot be
//      reached gives no verdict (RE7): the replica opens as it is, and retries.
// RR2. the snapshot: after a fork, the newest of the lineage that forked (ReplicaOptions.Lineage
//      picks one when several did); otherwise the newest of the followed lineage, which is usable
//      only when the journal after it starts in an object after the broken one (its manifest's
//      JournalFile > the position's file): an older one leads to the same break. No usable
//      snapshot: ReplicaStoppedException saying what to upload, and the directory is untouched.
// RR3. the swap, each step durable (the parent directory synced) before the next:
//        1. build: the snapshot downloaded and restored into DIR.rebuild, its voron.replica written
//        2. write the marker DIR.rebuild-ready                    <- the commit point
//        3. rename DIR to DIR.rebuild-old (the old store is closed before this step)
//        4. rename DIR.rebuild to DIR
//        5. delete DIR.rebuild-old, then the marker
// RR4. every OpenReplica first finishes an interrupted swap (Resume): with the marker, steps 3-5
//      are done from where they stopped (a step already done is skipped); without it, the partial
//      build (DIR.rebuild) is deleted. A crash at any point thus leaves the old replica (before
//      the marker) or the new one (from the marker on), never a mix. The download directory is
//      deleted in both cases.
// RR5. a rebuild keeps nothing of the old replica: its store, its position and its local journal
//      go, with whatever transactions it applied past the snapshot (the new replica applies them
//      again from the shipped log, or, after a fork, the other lineage's instead).

/// <summary>Rebuilds a replica from a snapshot and swaps it in (RR1–RR5 above).</summary>
internal static class ReplicaRebuild
{
    public const string BuildSuffix = ".rebuild";
    public const string DownloadSuffix = ".rebuild-download";
    public const string MarkerSuffix = ".rebuild-ready";
    public const string OldSuffix = ".rebuild-old";

    /// <summary>
    /// RR2 and steps 1–2: the snapshot chosen for <paramref name="broken"/> (null: a first open, any
    /// snapshot of <paramref name="lineage"/>) restored beside <paramref name="directory"/> and the
    /// marker written. The old replica is untouched; <see cref="Resume"/> swaps the new one in.
    /// </summary>
    public static async Task BuildAsync(IArchiveDestination destination, string directory, IFileSystem fileSystem, ulong lineage, ReplicaBreak? broken,
        ReplicaOptions options, CancellationToken cancellationToken)
    {
        var (source, snapshot) = await ChooseSnapshotAsync(destination, lineage, broken, options, cancellationToken).ConfigureAwait(false);
        var build = directory + BuildSuffix;
        var download = directory + DownloadSuffix;
        DeleteTree(build);
        DeleteTree(download);
        try
        {
            Directory.CreateDirectory(download);
            await ObjectArchive.DownloadSnapshotAsync(destination, source, snapshot, download, cancellationToken).ConfigureAwait(false);
            var manifest = BackupManifest.Read(fileSystem, download);
            await StorageEnvironment.RestoreAsync(download, build, cancellationToken: cancellationToken).ConfigureAwait(false);
            var previous = manifest.JournalFile > 0
                ? await ArchiveUpload.ReadHeaderAsync(destination, ArchiveKeys.Journal(source, manifest.JournalFile - 1), cancellationToken).ConfigureAwait(false)
                : null;
            new ReplicaPosition(source, manifest.JournalFile, manifest.JournalOffset, manifest.SnapshotTxId + 1, previous?.After, manifest.SnapshotCommitTime)
                .Write(fileSystem, build);
            DeleteTree(download);
            fileSystem.SyncDirectory(ParentOf(directory));
        }
        catch
        {
            DeleteTree(build); // RR4 would delete it on the next open anyway: a failed build leaves no copy behind
            DeleteTree(download);
            throw;
        }

        options.AfterRebuildStep?.Invoke(1);
        WriteMarker(fileSystem, directory);
        options.AfterRebuildStep?.Invoke(2);
    }

    /// <summary>
    /// RR4: finishes an interrupted swap (steps 3–5, each skipped when done) when the marker is
    /// there, else deletes a partial build. The replica's store must be closed.
    /// </summary>
    public static void Resume(IFileSystem fileSystem, string directory, Action<int>? afterStep = null)
    {
        var parent = ParentOf(directory);
        var build = directory + BuildSuffix;
        var old = directory + OldSuffix;
        var marker = directory + MarkerSuffix;
        DeleteTree(directory + DownloadSuffix);
        File.Delete(marker + ".tmp");
        if (!File.Exists(marker))
        {
            DeleteTree(build); // before the commit point: the old replica stays
            return;
        }

        if (Directory.Exists(build))
        {
            if (Directory.Exists(directory))
            {
                DeleteTree(old); // a replica moved aside earlier and superseded by the marked build
                Directory.Move(directory, old);
                fileSystem.SyncDirectory(parent);
            }

            afterStep?.Invoke(3);
            Directory.Move(build, directory);
            fileSystem.SyncDirectory(parent);
            afterStep?.Invoke(4);
        }

        DeleteTree(old);
        fileSystem.SyncDirectory(parent);
        afterStep?.Invoke(5);
        fileSystem.DeleteFile(marker);
        fileSystem.SyncDirectory(parent);
    }

    /// <summary>Whether <paramref name="ancestor"/> is a lineage <paramref name="lineage"/> descends from through fork notes (a replica rebuilt after a fork, RR2, is still opened under the lineage it was first given).</summary>
    public static async Task<bool> IsAncestorAsync(IArchiveDestination destination, ulong lineage, ulong ancestor, CancellationToken cancellationToken)
    {
        for (var step = 0; step < 1_000; step++) // a step limit: fork notes are read from the destination
        {
            if (await ReadForkAsync(destination, lineage, cancellationToken).ConfigureAwait(false) is not { } fork)
            {
                return false;
            }

            if (fork.Parent == ancestor)
            {
                return true;
            }

            lineage = fork.Parent;
        }

        return false;
    }

    /// <summary>The fork note of <paramref name="lineage"/> (its parent and fork transaction), or null when it forked from nothing.</summary>
    public static async Task<ArchiveObjectHeader?> ReadForkAsync(IArchiveDestination destination, ulong lineage, CancellationToken cancellationToken) =>
        await ArchiveUpload.ReadHeaderAsync(destination, ArchiveKeys.Fork(lineage), cancellationToken).ConfigureAwait(false) is
            { Kind: ArchiveObjectKind.ForkNote } fork && fork.Lineage == lineage && fork.Parent != 0
            ? fork
            : null;

    /// <summary>RR2: the lineage and transaction of the snapshot to restore.</summary>
    private static async Task<(ulong Lineage, long Snapshot)> ChooseSnapshotAsync(IArchiveDestination destination, ulong lineage, ReplicaBreak? broken,
        ReplicaOptions options, CancellationToken cancellationToken)
    {
        var source = lineage;
        if (broken is { Forks.Count: > 0 } fork)
        {
            var requested = options.Lineage == null ? (ulong?)null : ObjectArchive.ParseLineage(options.Lineage);
            var named = fork.Forks.Where(f => f.Lineage == requested).ToList();
            if (named.Count == 0 && fork.Forks.Count > 1)
            {
                throw new ReplicaStoppedException($"{fork.Error.Message} Re-snapshot cannot choose: {fork.Forks.Count} lineages forked from it " +
                    $"({string.Join(", ", fork.Forks.Select(f => ArchiveKeys.Lineage(f.Lineage)))}); name the one to follow in ReplicaOptions.Lineage (voron follow --lineage).",
                    fork.Error);
            }

            source = (named.Count > 0 ? named[0] : fork.Forks[0]).Lineage;
        }

        var snapshots = await ObjectArchive.ListSnapshotsAsync(destination, source, cancellationToken).ConfigureAwait(false);
        if (snapshots.Count == 0)
        {
            throw broken == null
                ? new InvalidOperationException($"{destination.Description} holds no complete snapshot of lineage {ArchiveKeys.Lineage(source)}: " +
                    "upload a backup of the primary with ObjectArchive.UploadSnapshotAsync, then open the replica.")
                : new ReplicaStoppedException($"{broken.Error.Message} Re-snapshot found no complete snapshot of lineage {ArchiveKeys.Lineage(source)} in " +
                    $"{destination.Description}: upload a backup of that lineage's primary with ObjectArchive.UploadSnapshotAsync, then open the replica again.",
                    broken.Error);
        }

        if (broken is { Forks.Count: 0 })
        {
            var manifest = await ObjectArchive.ReadManifestAsync(destination, source, snapshots[^1], cancellationToken).ConfigureAwait(false);
            if (manifest.JournalFile <= broken.FileNumber)
            {
                throw new ReplicaStoppedException($"{broken.Error.Message} Re-snapshot found no snapshot past the break: the newest, of transaction " +
                    $"{snapshots[^1]}, continues in journal object {manifest.JournalFile}, at or before the broken object {broken.FileNumber}. Upload a newer " +
                    "backup of the primary with ObjectArchive.UploadSnapshotAsync, then open the replica again.", broken.Error);
            }
        }

        return (source, snapshots[^1]);
    }

    /// <summary>Step 2: an empty marker file, made durable under its name (temp, sync, rename, parent synced).</summary>
    private static void WriteMarker(IFileSystem fileSystem, string directory)
    {
        var marker = directory + MarkerSuffix;
        var temp = marker + ".tmp";
        using (var file = fileSystem.Open(temp, FileOpenMode.OpenOrCreate))
        {
            file.SetLength(0);
            file.FlushData();
        }

        fileSystem.MoveFile(temp, marker);
        fileSystem.SyncDirectory(ParentOf(directory));
    }

    private static string ParentOf(string directory) => Path.GetDirectoryName(directory) ?? throw new ArgumentException($"'{directory}' has no parent directory.");

    private static void DeleteTree(string path)
    {
        if (Directory.Exists(path))
        {
            Directory.Delete(path, recursive: true);
        }
    }
}
