using Voron.Allocation;
using Voron.Archive;
using Voron.Backup;
using Voron.Header;
using Voron.Journal;
using Voron.Replication;
using Voron.Transactions;

namespace Voron;

public sealed partial class StorageEnvironment
{
    private ReplicaFollower? _follower;

    /// <summary>
    /// Opens a read replica of a store that ships its journal to <paramref name="destination"/>
    /// (<see cref="StorageEnvironmentOptions.ArchiveDestination"/>): the first time, the newest
    /// snapshot of the lineage (<see cref="ObjectArchive.UploadSnapshotAsync"/>) is restored into
    /// <paramref name="directory"/>, which must be empty or missing; later, the replica there resumes
    /// from its own position without downloading a snapshot. Then a background task applies each
    /// shipped transaction as it appears, with the primary's transaction id (RE2–RE4 in
    /// Voron.Core/Replication/ReplicaFollower.cs). The store is read-only: every write refuses (RE1).
    /// Its progress is <see cref="Replica"/>; <see cref="WaitForTransactionAsync"/> waits for a
    /// transaction the primary committed. With <see cref="ReplicaOptions.Resnapshot"/>, a replica that
    /// cannot continue from its position is rebuilt from a snapshot first (RR1–RR5 in
    /// Voron.Core/Replication/ReplicaRebuild.cs).
    /// </summary>
    /// <exception cref="ArgumentException">The lineage is not 16 hex digits, or differs from the one the replica follows; the options set an archive or an encryption key.</exception>
    /// <exception cref="InvalidOperationException">The destination holds no snapshot of the lineage (or, with no lineage given, snapshots of none or of several), or the directory holds files that are not a replica.</exception>
    /// <exception cref="ReplicaStoppedException">With <see cref="ReplicaOptions.Resnapshot"/>: the replica cannot continue, and no snapshot past the break is there (the message says which to upload).</exception>
    public static StorageEnvironment OpenReplica(IArchiveDestination destination, string directory, ReplicaOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentException.ThrowIfNullOrWhiteSpace(directory);
        options ??= new ReplicaOptions();
        if (options.PollInterval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.PollInterval, "ReplicaOptions.PollInterval must be positive.");
        }

        var full = System.IO.Path.TrimEndingDirectorySeparator(System.IO.Path.GetFullPath(directory));
        var storeOptions = StorageEnvironmentOptions.ForDirectory(full);
        options.Configure?.Invoke(storeOptions);
        if (storeOptions.ArchiveDestination != null || storeOptions.JournalArchiveDirectory != null || storeOptions.InMemory ||
            System.IO.Path.TrimEndingDirectorySeparator(System.IO.Path.GetFullPath(storeOptions.Directory)) != full)
        {
            throw new ArgumentException("ReplicaOptions.Configure must leave the directory, ArchiveDestination and JournalArchiveDirectory as they are: " +
                "a replica keeps its own on-disk store and ships nothing.", nameof(options));
        }

        if (storeOptions.EncryptionKey != null || storeOptions.EncryptionKeyProvider != null)
        {
            throw new ArgumentException("ReplicaOptions.Configure set an encryption key: replicas of an encrypted store are not supported yet (the " +
                "replica's follower cannot decrypt the shipped journal). Open the replica without EncryptionKey and EncryptionKeyProvider, from an " +
                "unencrypted primary.", nameof(options));
        }

        return Task.Run(() => OpenReplicaAsync(destination, full, storeOptions, options)).GetAwaiter().GetResult();
    }

    /// <summary>OpenReplica after its checks: an interrupted swap finished (RR4), the replica prepared, opened, and rebuilt first when it must be (RR1).</summary>
    private static async Task<StorageEnvironment> OpenReplicaAsync(IArchiveDestination destination, string full, StorageEnvironmentOptions storeOptions,
        ReplicaOptions options)
    {
        ReplicaRebuild.Resume(storeOptions.FileSystem, full, options.AfterRebuildStep); // RR4
        var (position, switchTo) = await PrepareReplicaAsync(destination, full, options).ConfigureAwait(false);
        string? rebuiltBecause = null;
        while (true)
        {
            var environment = OpenCore(storeOptions);
            ReplicaFollower? follower = null;
            try
            {
                var broken = rebuiltBecause == null ? switchTo : null;
                if (environment.LastCommittedTransactionId < position.NextTx - 1)
                {
                    var replaced = new CorruptionException(System.IO.Path.Combine(full, ReplicaPosition.FileName), ReplicaPosition.NextTxOffset,
                        $"RE4: the replica's position says transactions up to {position.NextTx - 1} were applied, but its store holds transaction " +
                        $"{environment.LastCommittedTransactionId}: the store was replaced; delete the directory and open the replica again " +
                        "(or open it with ReplicaOptions.Resnapshot)");
                    broken = options.Resnapshot && rebuiltBecause == null
                        ? new ReplicaBreak(new ReplicaStoppedException(replaced.Message, replaced), -1, [])
                        : throw replaced;
                }

                follower = new ReplicaFollower(new ReplicaFollowerSeams
                {
                    FileSystem = storeOptions.FileSystem,
                    Directory = full,
                    AppliedTransaction = () => environment._committed.TxId,
                    AppliedCommitTime = () => environment._committed.CommitTime,
                    Apply = environment.ApplyReplicated,
                }, destination, position, options.PollInterval) { RebuiltBecause = rebuiltBecause };
                if (broken == null && options.Resnapshot && rebuiltBecause == null)
                {
                    try
                    {
                        broken = await follower.FindBreakAsync(CancellationToken.None).ConfigureAwait(false); // RR1
                    }
                    catch (Exception e) when (e is not (EnvironmentFailedException or ObjectDisposedException))
                    {
                        // RE7: the destination cannot be reached: no verdict; the follower retries
                    }
                }

                if (broken == null)
                {
                    environment._follower = follower;
                    follower.Start();
                    return environment;
                }

                await ReplicaRebuild.BuildAsync(destination, full, storeOptions.FileSystem, position.Lineage, broken, options, CancellationToken.None)
                    .ConfigureAwait(false); // RR2, steps 1-2 while the old store still holds its lock
                rebuiltBecause = broken.Error.Message;
            }
            catch
            {
                if (follower != null)
                {
                    await follower.DisposeAsync().ConfigureAwait(false);
                }

                environment.Dispose();
                throw;
            }

            await follower.DisposeAsync().ConfigureAwait(false);
            environment.Dispose();
            ReplicaRebuild.Resume(storeOptions.FileSystem, full, options.AfterRebuildStep); // steps 3-5
            position = ReplicaPosition.Read(storeOptions.FileSystem, full)!;
        }
    }

    /// <summary>
    /// Where this read replica is: the primary's transaction applied last, the newest seen, the lag,
    /// and whether it still follows (null for a store that is not a replica).
    /// </summary>
    public ReplicaStatus? Replica => _follower?.Status;

    /// <summary>
    /// Completes when transaction <paramref name="transactionId"/> (or a later one) is committed here
    /// and visible to readers, at once if it is already: on a replica, when the primary's transaction
    /// of that id has been applied, so a caller reads its own writes with the id the primary's commit
    /// gave it (<see cref="LastCommittedTransactionId"/> there).
    /// </summary>
    /// <exception cref="ReplicaStoppedException">The replica stopped (before or during the wait) below that transaction.</exception>
    /// <exception cref="ObjectDisposedException">The store is disposed.</exception>
    /// <exception cref="EnvironmentFailedException">The store failed.</exception>
    public async Task WaitForTransactionAsync(long transactionId, CancellationToken cancellationToken = default)
    {
        if (_committed.TxId >= transactionId)
        {
            return;
        }

        var commit = WaitForCommitAsync(transactionId - 1, cancellationToken);
        if (_follower is not { } follower)
        {
            await commit.ConfigureAwait(false);
            return;
        }

        if (await Task.WhenAny(commit, follower.Stopped).ConfigureAwait(false) == commit || _committed.TxId >= transactionId)
        {
            await commit.ConfigureAwait(false);
            return;
        }

        var stopped = await follower.Stopped.ConfigureAwait(false);
        throw stopped is ReplicaStoppedException replica
            ? new ReplicaStoppedException($"Transaction {transactionId} was not applied: {replica.Message}", replica.InnerException)
            : stopped;
    }

    /// <summary>Ends the replica's wait between passes now (tests; a caller who knows the primary shipped).</summary>
    internal void WakeReplica() => _follower?.Wake();

    /// <summary>RE1: a replica refuses every write.</summary>
    private void ThrowIfReplica(string what)
    {
        if (_follower is { } follower)
        {
            var status = follower.Status;
            throw new InvalidOperationException(
                $"{what}: the store at '{Path}' is a read replica of lineage {status.Lineage} ({status.Destination}); it accepts no writes (RE1). " +
                "Write to the primary, and wait here for its transaction id with WaitForTransactionAsync to read your own writes.");
        }
    }

    /// <summary>Whether the store in <paramref name="directory"/> is a replica (compaction refuses it: RE1).</summary>
    internal static bool IsReplicaDirectory(string directory) => File.Exists(System.IO.Path.Combine(directory, ReplicaPosition.FileName));

    private void StopFollowing()
    {
        var follower = Interlocked.Exchange(ref _follower, null);
        follower?.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

    /// <summary>
    /// A new replica: the newest snapshot restored and its position written (RR3's swap); an existing
    /// one: its position, and, when ReplicaOptions.Lineage names a lineage that forked from the one it
    /// follows and Resnapshot is set, the switch to it (RR2).
    /// </summary>
    private static async Task<(ReplicaPosition Position, ReplicaBreak? SwitchTo)> PrepareReplicaAsync(IArchiveDestination destination, string directory,
        ReplicaOptions options)
    {
        var fileSystem = StorageEnvironmentOptions.ForDirectory(directory).FileSystem;
        var requested = options.Lineage == null ? (ulong?)null : ObjectArchive.ParseLineage(options.Lineage);
        if (ReplicaPosition.Read(fileSystem, directory) is { } existing)
        {
            if (requested is not { } other || other == existing.Lineage ||
                await ReplicaRebuild.IsAncestorAsync(destination, existing.Lineage, other, CancellationToken.None).ConfigureAwait(false))
            {
                return (existing, null);
            }

            if (options.Resnapshot && await ReplicaRebuild.ReadForkAsync(destination, other, CancellationToken.None).ConfigureAwait(false) is { } fork &&
                fork.Parent == existing.Lineage)
            {
                return (existing, new ReplicaBreak(new ReplicaStoppedException($"ReplicaOptions.Lineage names lineage {ArchiveKeys.Lineage(other)}, which forked " +
                    $"from the followed lineage {ArchiveKeys.Lineage(existing.Lineage)} at transaction {fork.LastTx}."), existing.FileNumber, [(other, fork)]));
            }

            throw new ArgumentException($"The replica in '{directory}' follows lineage {ArchiveKeys.Lineage(existing.Lineage)}, not " +
                $"{ArchiveKeys.Lineage(other)}: open a new replica in another directory" +
                (options.Resnapshot ? "." : ", or, when that lineage forked from this one, open this replica with ReplicaOptions.Resnapshot to switch to it."),
                nameof(options));
        }

        if (Directory.Exists(directory) && Directory.EnumerateFileSystemEntries(directory).Any())
        {
            throw new InvalidOperationException($"'{directory}' holds files but no {ReplicaPosition.FileName}: it is not a replica. " +
                "Open the replica in an empty directory, or delete this one.");
        }

        var lineage = requested ?? await DiscoverLineageAsync(destination).ConfigureAwait(false);
        await ReplicaRebuild.BuildAsync(destination, directory, fileSystem, lineage, broken: null, options, CancellationToken.None).ConfigureAwait(false);
        ReplicaRebuild.Resume(fileSystem, directory, options.AfterRebuildStep);
        return (ReplicaPosition.Read(fileSystem, directory)!, null);
    }

    /// <summary>The one lineage with a snapshot in the destination (ReplicaOptions.Lineage unset).</summary>
    private static async Task<ulong> DiscoverLineageAsync(IArchiveDestination destination)
    {
        var found = new SortedSet<ulong>();
        await foreach (var item in destination.ListAsync("").ConfigureAwait(false))
        {
            if (ArchiveKeys.ParseLineage(item.Key) is { } lineage && item.Key.AsSpan(16).StartsWith("/snapshots/") &&
                item.Key.EndsWith("/" + BackupManifest.FileName, StringComparison.Ordinal))
            {
                found.Add(lineage);
            }
        }

        return found.Count == 1
            ? found.Min
            : throw new InvalidOperationException(found.Count == 0
                ? $"{destination.Description} holds no snapshot of any lineage: upload a backup of the primary with ObjectArchive.UploadSnapshotAsync."
                : $"{destination.Description} holds snapshots of {found.Count} lineages ({string.Join(", ", found.Select(ArchiveKeys.Lineage))}): " +
                  "name the primary's in ReplicaOptions.Lineage (its store id, as `voron info` shows it).");
    }

    /// <summary>
    /// RE2: applies one shipped record as the internal write transaction of its id — decoded onto
    /// the pages as they are, journaled here, published, queued for the flush, made visible (the
    /// commit pipeline's steps 2–5, C3). A failure after the local journal's first write fails the
    /// store (C5).
    /// </summary>
    private void ApplyReplicated(RecoveredRecord record, string where)
    {
        try
        {
            _writeLock.Wait(_closingSource.Token); // T1: nobody else writes a replica, but a dispose may be waiting
        }
        catch (OperationCanceledException)
        {
            throw Disposing();
        }

        var entered = false;
        long generation = 0;
        try
        {
            ThrowIfUnusable();
            var committed = _registry.EnterWriter(out generation);
            entered = true;
            var txId = record.TransactionId;
            if (txId != committed.TxId + 1)
            {
                throw new ReplicaStoppedException($"RE3: record {txId} of {where} does not follow the replica's transaction {committed.TxId}.");
            }

            var state = EnvironmentState.ReadFrom(record.State.Span, where, record.Start.Offset);
            try
            {
                Pager.Reserve(state.NextPageNumber); // PG5
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw _failures.FailWith(e);
            }

            var (pages, entries, freed) = DecodeReplicated(record, state, committed, where);
            var byNumber = pages.ToDictionary(p => p.Key, p => p.Value);
            var prepared = new PreparedCommit(txId, state, committed.FreeSpace, pages, byNumber, entries, freed);
            JournalRecordLocation location;
            try
            {
                location = Journal.Append(txId, record.State.Span, entries, _options.JournalCompression, sync: _options.Durability == DurabilityMode.Durable,
                    record.CommitTime);
            }
            catch (Exception e) when (Journal.Failure != null)
            {
                throw _failures.FailWith(e); // C5
            }

            try
            {
                PageTable.Publish(txId, pages, freed, _registry.CaptureRetention); // PT2
                _flusher.Enqueue(prepared.ForFlush(location.End)); // FL9
                var visible = new CommittedState(txId, state, committed.FreeSpace, location.End) { CommitTime = location.CommitTime };
                var reader = new LowLevelTransaction(_transactions, visible, writable: false);
                MakeVisible(visible with { FreeSpace = FreeSpaceSummary.Load(reader, state.FreeSpaceRoot, state.NextPageNumber) }); // C3
            }
            catch (Exception e)
            {
                throw _failures.FailWith(e); // C5: the record is in the local journal
            }
        }
        finally
        {
            var release = entered && _registry.ExitWriter(generation);
            _writeLock.Release();
            if (release)
            {
                ReleaseResources(); // LC6
            }
        }
    }

    /// <summary>
    /// The record's entries as full page images on top of the committed state, the entries to
    /// journal here (as shipped), and the keys to tombstone: a run a record writes may cover the
    /// first page of an older version the primary freed (a tombstone the record does not carry), and
    /// the flusher must not write that stale version over the run (PT5).
    /// </summary>
    private (List<KeyValuePair<long, byte[]>> Pages, JournalPage[] Entries, long[] Freed) DecodeReplicated(RecoveredRecord record, EnvironmentState state,
        CommittedState committed, string where)
    {
        var pages = new List<KeyValuePair<long, byte[]>>(record.Pages.Count);
        var entries = new JournalPage[record.Pages.Count];
        var numbers = new HashSet<long>();
        for (var i = 0; i < record.Pages.Count; i++)
        {
            var page = record.Pages[i];
            CheckEntryBounds(page, state, where, record.Start.Offset, record.TransactionId);
            if (!numbers.Add(page.PageNumber))
            {
                throw new CorruptionException(where, record.Start.Offset, $"record tx {record.TransactionId} writes page {page.PageNumber} twice");
            }

            var length = page.PageCount * Constants.PageSize;
            var image = length == Constants.PageSize ? PageTable.Buffers.Rent() : GC.AllocateArray<byte>(length, pinned: true);
            switch (page.Encoding)
            {
                case JournalPageEncoding.FullImage:
                    page.Bytes.Span.CopyTo(image);
                    entries[i] = new JournalPage(page.PageNumber, image);
                    break;
                case JournalPageEncoding.DiffAgainstZeros:
                    Array.Clear(image);
                    ApplyDiff(page, image, where, record.Start.Offset, record.TransactionId);
                    entries[i] = new JournalPage(page.PageNumber, page.Bytes, page.Encoding, page.PageCount);
                    break;
                case JournalPageEncoding.DiffAgainstPrevious:
                    ReadCurrent(page.PageNumber, image, committed.TxId);
                    ApplyDiff(page, image, where, record.Start.Offset, record.TransactionId);
                    entries[i] = new JournalPage(page.PageNumber, page.Bytes, page.Encoding, page.PageCount);
                    break;
                default:
                    // IP6: a store with a journal archive never writes pages in place, so a shipped
                    // record naming such pages was not made by a shipping store.
                    throw new CorruptionException(where, record.Start.Offset,
                        $"IP6: record tx {record.TransactionId} names pages [{page.PageNumber}, {page.PageNumber + page.PageCount}) written in place in the " +
                        "primary's data file (encoding 3), which a shipped record never does: the object was not shipped by a Voron primary with an archive");
            }

            pages.Add(new(page.PageNumber, image));
        }

        pages.Sort((a, b) => a.Key.CompareTo(b.Key));
        var freed = new List<long>();
        foreach (var page in record.Pages)
        {
            for (var covered = page.PageNumber + 1; covered < page.PageNumber + page.PageCount; covered++)
            {
                if (!numbers.Contains(covered) && PageTable.TryGet(covered, committed.TxId, out _))
                {
                    freed.Add(covered);
                }
            }
        }

        return (pages, entries, [.. freed]);
    }

    /// <summary>The page (or run) as the committed state has it: its newest version, else the data file's bytes.</summary>
    private void ReadCurrent(long pageNumber, Span<byte> target, long snapshot)
    {
        target.Clear();
        if (PageTable.TryGet(pageNumber, snapshot, out var version))
        {
            version[..Math.Min(version.Length, target.Length)].CopyTo(target);
            return;
        }

        Pager.ReadRaw(pageNumber, target);
    }
}
