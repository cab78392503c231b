using System.Diagnostics;
using Voron.Backup;
using Voron.Compaction;
using Voron.Header;
using Voron.Platform;

namespace Voron;

// Compaction: offline, a dense copy swapped in (Compaction/, rules CP1..CP10).
//
// Why not in place, online: page numbers are stable, and the journal's page diffs are computed
// against the previous version of the same page number, so moving a page needs relocation
// (docs/relocation.md: copy-on-write in the tree, a journal encoding "diff against another page",
// a reuse rule), which this engine does not have. And why not a copy taken online and swapped
// later: a copy at snapshot S cannot absorb the commits after S — they are page diffs against the
// old layout — so an online copy-and-swap would have to block writers for the whole copy (as
// SQLite's VACUUM does) or lose those commits. Offline, the user closes the store (a maintenance
// window); the cost is writing the live data once, plus reading it back to verify.
//
//   1. take the store's lock (StoreLockedException if it is open) and open the store under it:
//      recovery runs, and so does open step 1a (an earlier compaction is finished or discarded)
//   2. in one read transaction, write the copy into <store>/compaction/ (CompactingCopy, CP1)
//   3. verify it: open it, CheckIntegrity, the same trees with the same counts; it is synced
//   4. close the store cleanly, keeping the lock; check its header names the snapshot's
//      transaction as synced (nothing is left in the journal)
//   5. write and sync compaction/ready (Compaction/CompactionMarker.cs): THE COMMIT POINT (CP2)
//   6. swap (Compaction/CompactionSwap.cs), release the lock
// A failure or cancellation before 5 deletes the copy (and a crash leaves it to step 1a).

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Rewrites the store in <paramref name="options"/>' directory densely (tree by tree, in key
    /// order) and swaps the copy in. The store must not be open: compaction takes its lock.
    /// </summary>
    /// <remarks>
    /// Costs writing the live data once and reading it back once, and room on disk for the copy
    /// until the swap. A crash at any point leaves the old store or the compacted one, which the
    /// next open finishes putting in place. The compacted store has a new store id and the same
    /// last transaction; a journal archive of the old store cannot be replayed onto it. With
    /// <see cref="StorageEnvironmentOptions.JournalArchiveDirectory"/> set, the swap archives the
    /// old store's last journal files and notes the compaction there (JA9), so backups taken
    /// before it restore to any transaction up to it: pass the options the store runs with.
    /// </remarks>
    /// <exception cref="StoreLockedException">The store is open, in this process or another.</exception>
    /// <exception cref="OperationCanceledException">Cancelled before the swap began; the store is as it was.</exception>
    /// <exception cref="ArgumentException">An in-memory store.</exception>
    public static Task<CompactionResult> CompactAsync(StorageEnvironmentOptions options, IProgress<BackupProgress>? progress = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.InMemory)
        {
            throw new ArgumentException("An in-memory store cannot be compacted: it is gone when it closes.", nameof(options));
        }

        if (IsReplicaDirectory(options.Directory))
        {
            throw new InvalidOperationException($"The store at '{options.Directory}' is a read replica: compacting it would renumber the pages its " +
                "primary's shipped journal names (RE1). Compact the primary, upload a backup of it, and open a new replica.");
        }

        return Task.Run(() => Compact(options, progress, cancellationToken));
    }

    /// <summary>
    /// Rewrites the store in <paramref name="options"/>' directory under <paramref name="newKey"/>
    /// (32 bytes) and swaps the copy in, exactly as <see cref="CompactAsync"/> does: afterwards the
    /// store opens with <paramref name="newKey"/> only. Open it with its current key in
    /// <paramref name="options"/> (none for a store that is not encrypted: this encrypts it). Every
    /// page is sealed anew under a new salt. The store must not be open.
    /// </summary>
    /// <remarks>
    /// A crash at any point leaves the store under its old key or under the new one, never a mix:
    /// the swap is compaction's (the next open finishes it). Backups and journal archives taken
    /// before keep the old key: keep it as long as you keep them.
    /// </remarks>
    /// <example>
    /// <code>
    /// var options = StorageEnvironmentOptions.ForDirectory(path);
    /// options.EncryptionKey = oldKey;
    /// await StorageEnvironment.RekeyAsync(options, newKey);
    /// </code>
    /// </example>
    /// <exception cref="StoreLockedException">The store is open, in this process or another.</exception>
    /// <exception cref="ArgumentException"><paramref name="newKey"/> is not 32 bytes, or is all zeros.</exception>
    public static Task<CompactionResult> RekeyAsync(StorageEnvironmentOptions options, byte[] newKey, IProgress<BackupProgress>? progress = null,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(newKey);
        Sealing.StoreKey.Derive(newKey, new byte[Sealing.SealFormat.SaltSize], 0, Sealing.SealFormat.Preferred).Dispose(); // the key's own checks, before anything is read
        if (options.InMemory)
        {
            throw new ArgumentException("An in-memory store cannot be rekeyed: it is gone when it closes.", nameof(options));
        }

        if (IsReplicaDirectory(options.Directory))
        {
            throw new InvalidOperationException($"The store at '{options.Directory}' is a read replica; rekey its primary and open a new replica.");
        }

        var key = newKey.ToArray();
        return Task.Run(() => Compact(options, progress, cancellationToken, key));
    }

    /// <summary>The work of <see cref="CompactAsync"/> and <see cref="RekeyAsync"/> (<paramref name="newKey"/>), on the calling thread (the crash tests call it directly).</summary>
    internal static CompactionResult Compact(StorageEnvironmentOptions options, IProgress<BackupProgress>? progress, CancellationToken cancellationToken,
        byte[]? newKey = null)
    {
        var clock = Stopwatch.StartNew();
        var fileSystem = options.FileSystem;
        var layout = new StoreLayout(options.Directory);
        var copyLayout = new StoreLayout(CompactionSwap.CopyDirectory(layout));
        var meter = new CopyMeter(progress, null, cancellationToken);
        fileSystem.CreateDirectory(layout.Directory);
        using var storeLock = fileSystem.LockExclusive(layout.LockFile);

        long before;
        long transactionId;
        ulong sourceId;
        ulong copyId;
        var source = OpenCore(options, new BorrowedLock());
        try
        {
            before = source.Pager.PageCount * Constants.PageSize;
            sourceId = HeaderFile.ReadNewest(fileSystem, layout)!.Value.StoreId; // open wrote or found a valid copy
            fileSystem.CreateDirectory(copyLayout.Directory);
            using (var read = source.BeginRead())
            {
                transactionId = read.Id;
                var copyKey = newKey ?? options.SealingKey; // a sealed store's copy is sealed, under a new salt
                CompactingCopy.Write(read, fileSystem, copyLayout.Directory, meter, sealingKey: copyKey);
                copyId = Verify(read, options, copyLayout, meter, copyKey);
            }
        }
        catch
        {
            source.Dispose();
            CompactionSwap.Discard(fileSystem, copyLayout);
            throw;
        }

        try
        {
            source.Dispose(); // a clean close: every commit goes to the data file; the lock stays held
            var header = HeaderFile.ReadNewest(fileSystem, layout);
            if (header is not { } closed || closed.StoreId != sourceId || closed.LastSyncedTxId != transactionId)
            {
                throw new InvalidOperationException(
                    $"The store at '{layout.Directory}' did not close cleanly after compaction copied transaction {transactionId} " +
                    $"(its header names transaction {header?.LastSyncedTxId.ToString() ?? "none"} as synced); the copy was discarded and the store is unchanged.");
            }

            cancellationToken.ThrowIfCancellationRequested(); // the last moment a cancellation leaves the store as it was
        }
        catch
        {
            CompactionSwap.Discard(fileSystem, copyLayout);
            throw;
        }

        var marker = new CompactionMarker(sourceId, transactionId, copyId);
        marker.Write(fileSystem, CompactionSwap.MarkerPath(layout)); // CP2: the commit point
        meter.Phase("swap", 0);
        CompactionSwap.RollForward(fileSystem, layout, marker, options.JournalArchiveDirectory);
        long after;
        using (var data = fileSystem.Open(layout.DataFile, FileOpenMode.OpenExisting))
        {
            after = data.Length;
        }

        meter.Finish();
        return new CompactionResult(transactionId, before, after, clock.Elapsed);
    }

    /// <summary>
    /// Opens the copy, checks its integrity and that it holds the snapshot's trees with the same
    /// counts, and closes it; returns its store id.
    /// </summary>
    private static ulong Verify(ReadTransaction source, StorageEnvironmentOptions sourceOptions, StoreLayout copyLayout, CopyMeter meter, byte[]? sealingKey)
    {
        var fileSystem = sourceOptions.FileSystem;
        var options = StorageEnvironmentOptions.ForFileSystem(copyLayout.Directory, fileSystem);
        options.BackgroundFlush = false;
        options.JournalFileSize = sourceOptions.JournalFileSize;
        options.MaxDataFileSize = sourceOptions.MaxDataFileSize;
        options.SealingKey = sealingKey;
        using (var copy = Open(options))
        {
            var report = copy.CheckIntegrity();
            meter.Phase("verify", report.Trees);
            using var read = copy.BeginRead();
            var names = source.GetTreeNames();
            if (!names.SequenceEqual(read.GetTreeNames()))
            {
                throw new InvalidOperationException(
                    $"Compaction: the copy's trees ({string.Join(", ", read.GetTreeNames())}) differ from the store's ({string.Join(", ", names)}); the copy was discarded.");
            }

            foreach (var name in names)
            {
                var expected = source.OpenTree(name)!.Count;
                var actual = read.OpenTree(name)!.Count;
                if (expected != actual)
                {
                    throw new InvalidOperationException($"Compaction: tree '{name}' has {actual} entries in the copy and {expected} in the store; the copy was discarded.");
                }

                meter.Advance(1, 0);
            }
        }

        return HeaderFile.ReadNewest(fileSystem, copyLayout)?.StoreId
            ?? throw new IOException($"The compacted copy at '{copyLayout.Directory}' has no valid header after it was verified.");
    }
}
