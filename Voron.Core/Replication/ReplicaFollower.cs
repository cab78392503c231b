using Voron.Archive;
using Voron.Journal;
using Voron.Platform;

namespace Voron.Replication;

// Read replicas (StorageEnvironment.OpenReplica): a store that follows another store's shipped
// journal (docs/object-storage.md, "Read replicas").
//
//   loop (FollowLoopAsync)                       one pass (PollAsync)
//   ----------------------------------------     ------------------------------------------------
//   pass until it finds nothing new; then wait   1. object <lineage>/journal/<FileNumber>: missing
//   PollInterval (WakeAsync cuts the wait)          -> is a later one listed? a gap (RE5); else
//   a transient failure (the destination down):     look for a fork of the lineage (RE6); done
//     ConsecutiveFailures++, LastError, wait     2. download it, check AO2, the owner, the chain
//     min(PollInterval * 2^failures, 1 min)         (Before = the position's Before, AO1) and the
//   a fail-safe stop (RE5, RE6): Stopped,           transaction range (RE5)
//     the error kept, waiters get it             3. read its records from the position (JournalReader,
//                                                   Strict, bound to the lineage) and apply each one
//                                                   after the store's last transaction (RE2, RE3)
//                                                4. the position moves to the next object (RE4)
//
// RE1. a replica is read-only: every write API refuses it (InvalidOperationException saying to write to
//      the primary); reads, snapshots and backups work. Compaction of a replica's directory is
//      refused (it would renumber the pages the shipped journal names).
// RE2. each shipped record is applied as one internal write transaction whose id is the record's
//      (the primary's): its entries decoded onto the replica's current pages (full image, diff
//      against the previous version, diff against zeros; an in-place entry, IP6, is refused as
//      corruption), journaled locally with the primary's commit time, published to the page table,
//      queued for the flush and made visible, in that order (C3, PT2, FL9). Readers see a record
//      wholly or not at all (T3) and never wait for the apply.
// RE3. records are applied in transaction order without a gap: record N is applied only on top of
//      N - 1, and a record at or below the store's last transaction is skipped (it was applied
//      before a restart), never applied twice.
// RE4. the store's own last transaction is the replica's applied position: it is durable in its
//      local journal like any commit. voron.replica (ReplicaPosition.cs) names the object and
//      offset to read from and the chain value; it moves only after an object's every record is
//      applied, so after a crash the replica reads that object again and skips what it applied.
// RE5. fail-safe: a journal object missing while a later one is there (a gap), an object whose
//      Before is not the After of the last object applied (AO1), a damaged object (AO2), one of
//      another lineage or kind, one whose first transaction is not the next expected, or whose
//      records end before the header's LastTx, stops the replica (Stopped, the error in the status,
//      WaitForTransactionAsync throws it). It stops between transactions: nothing partial is
//      published, nothing is skipped. Reopening the replica tries again from its position; with
//      ReplicaOptions.Resnapshot the open checks that object first (FindBreakAsync) and rebuilds
//      the replica from a snapshot past the break (RR1 in ReplicaRebuild.cs).
// RE6. a lineage switch: an object <other>/fork whose Parent is the followed lineage (the primary
//      was restored or replaced and ships under a new id) stops the replica the same way. It is
//      looked for only on a pass that found nothing new (one listing per lineage in the destination).
//      With ReplicaOptions.Resnapshot, the next open rebuilds the replica from the newest snapshot
//      of the lineage that forked (RR1).
// RE7. a transient failure (the destination unreachable, a listing or download that throws
//      anything but CorruptionException or FormatVersionException) never stops the replica: the
//      pass is retried with backoff and reported (ConsecutiveFailures, LastError).

/// <summary>The background task of a replica (RE1–RE7 above).</summary>
internal sealed class ReplicaFollower : IAsyncDisposable
{
    private readonly ReplicaFollowerSeams _seams;
    private readonly IArchiveDestination _destination;
    private readonly ulong _lineage;
    private readonly TimeSpan _interval;
    private readonly string _staging;
    private readonly CancellationTokenSource _stop = new();
    private readonly TaskCompletionSource<Exception> _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly SemaphoreSlim _wake = new(0, int.MaxValue);
    private Task? _loop;

    // Written by the loop only; read without a lock by Status (a torn read shows an older status).
    private ReplicaPosition _position;
    private long _newestSeen;
    private long _newestSeenCommitTime;
    private int _failures;
    private string? _lastError;
    private Exception? _stopError;
    private bool _stopCurable;
    private bool _applying;

    public ReplicaFollower(ReplicaFollowerSeams seams, IArchiveDestination destination, ReplicaPosition position, TimeSpan interval)
    {
        _seams = seams;
        _destination = destination;
        _lineage = position.Lineage;
        _position = position;
        _interval = interval;
        _staging = Path.Combine(seams.Directory, StagingDirectoryName);
        _newestSeen = position.NextTx - 1;
        _newestSeenCommitTime = position.LastCommitTime;
    }

    /// <summary>Where a journal object is downloaded before it is read (emptied on open and after each object).</summary>
    public const string StagingDirectoryName = "replica-incoming";

    /// <summary>Completes with the error that stopped the replica (RE5, RE6); never while it follows.</summary>
    public Task<Exception> Stopped => _stopped.Task;

    /// <summary>Why this open rebuilt the replica (RR1), for the status; null when it did not.</summary>
    public string? RebuiltBecause { get; init; }

    public ReplicaStatus Status
    {
        get
        {
            var applied = _seams.AppliedTransaction();
            var appliedTime = _seams.AppliedCommitTime();
            if (appliedTime == 0 && applied == _position.NextTx - 1)
            {
                appliedTime = _position.LastCommitTime;
            }

            var newest = Math.Max(_newestSeen, applied);
            var newestTime = newest == applied ? appliedTime : _newestSeenCommitTime;
            var lag = newest > applied && newestTime > 0 && appliedTime > 0 ? TimeSpan.FromMilliseconds(Math.Max(0, newestTime - appliedTime)) : TimeSpan.Zero;
            return new ReplicaStatus(_destination.Description, ArchiveKeys.Lineage(_lineage), _stopError == null ? ReplicaState.Following : ReplicaState.Stopped,
                applied, ToTime(appliedTime), newest, ToTime(newestTime), lag, _failures, _lastError, _stopError)
            {
                ResnapshotWouldRebuild = _stopError != null && _stopCurable,
                RebuiltBecause = RebuiltBecause,
            };
        }
    }

    public void Start()
    {
        ResetStaging();
        _loop = Task.Run(() => FollowLoopAsync(_stop.Token));
    }

    /// <summary>Ends the wait between passes now (a test, or a caller who knows the primary shipped).</summary>
    public void Wake() => _wake.Release();

    private async Task FollowLoopAsync(CancellationToken cancellationToken)
    {
        while (!cancellationToken.IsCancellationRequested)
        {
            TimeSpan wait;
            try
            {
                while (await PollAsync(cancellationToken).ConfigureAwait(false))
                {
                }

                _failures = 0;
                _lastError = null;
                wait = _interval;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (IsFailSafe(e))
            {
                Stop(e); // RE5, RE6
                return;
            }
            catch (Exception e)
            {
                // RE7: the destination is down, or the store's own I/O failed (then the store is
                // failed, and the next pass stops the replica with EnvironmentFailedException).
                _failures++;
                _lastError = $"{DateTimeOffset.UtcNow:O} {e.GetType().Name}: {e.Message}";
                wait = TimeSpan.FromTicks(Math.Min(_interval.Ticks * (1L << Math.Min(_failures, 16)), TimeSpan.FromMinutes(1).Ticks));
            }

            try
            {
                await _wake.WaitAsync(wait, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private static bool IsFailSafe(Exception e) =>
        e is CorruptionException or FormatVersionException or ReplicaStoppedException or EnvironmentFailedException or ObjectDisposedException;

    private void Stop(Exception cause)
    {
        var error = Describe(cause);

        // RR1: a break FindBreakAsync finds again at the same position. A record the store refused
        // while applying it passed those checks, and the store's own failure is no break of the log.
        _stopCurable = !_applying && cause is CorruptionException or FormatVersionException or ReplicaStoppedException;
        _stopError = error;
        _stopped.TrySetResult(error);
    }

    private ReplicaStoppedException Describe(Exception cause) => cause as ReplicaStoppedException ?? new ReplicaStoppedException(
        $"The replica stopped following lineage {ArchiveKeys.Lineage(_lineage)} in {_destination.Description} at transaction {_seams.AppliedTransaction()}: " +
        $"{cause.Message}" + (cause is CorruptionException
            ? ". Open the replica again with ReplicaOptions.Resnapshot (voron follow --resnapshot) to rebuild it from a newer snapshot."
            : ""), cause);

    /// <summary>
    /// RR1: whether the replica can continue from its position, without applying anything: the
    /// object there downloaded and checked as a pass would (AO2, the chain, the transaction range,
    /// every record read to the header's LastTx), or, when it is missing, the gap and fork checks.
    /// Returns the break a pass would stop at, or null. A transient failure (RE7) is thrown.
    /// Called before <see cref="Start"/> only (it uses the staging directory).
    /// </summary>
    public async Task<ReplicaBreak?> FindBreakAsync(CancellationToken cancellationToken)
    {
        ResetStaging();
        var position = _position;
        try
        {
            var path = JournalFiles.PathOf(_staging, position.FileNumber);
            if (await FetchAsync(position, path, cancellationToken).ConfigureAwait(false) is not { } found)
            {
                var forks = await ForksAsync(firstOnly: false, cancellationToken).ConfigureAwait(false);
                return forks.Count == 0 ? null : new ReplicaBreak(ForkError(forks[0].Lineage, forks[0].Fork), position.FileNumber, forks);
            }

            try
            {
                if (found.LastTx >= position.NextTx)
                {
                    ReadRecords(found, position, ArchiveUpload.Where(_destination, ArchiveKeys.Journal(_lineage, position.FileNumber)), _ => { }, cancellationToken);
                }
            }
            finally
            {
                _seams.FileSystem.DeleteFile(path);
            }

            return null;
        }
        catch (Exception e) when (e is CorruptionException or FormatVersionException or ReplicaStoppedException)
        {
            return new ReplicaBreak(Describe(e), position.FileNumber, []);
        }
    }

    /// <summary>One object (steps 1–4 above): true when it applied one and another may follow.</summary>
    private async Task<bool> PollAsync(CancellationToken cancellationToken)
    {
        var position = _position;
        var path = JournalFiles.PathOf(_staging, position.FileNumber);
        if (await FetchAsync(position, path, cancellationToken).ConfigureAwait(false) is not { } found)
        {
            await CheckForkAsync(cancellationToken).ConfigureAwait(false);
            return false;
        }

        var where = ArchiveUpload.Where(_destination, ArchiveKeys.Journal(_lineage, position.FileNumber));
        try
        {
            if (found.LastTx >= position.NextTx)
            {
                _newestSeen = Math.Max(_newestSeen, found.LastTx);
                _newestSeenCommitTime = found.LastCommitTime;
                Apply(found, position, where, cancellationToken);
            }
        }
        finally
        {
            _seams.FileSystem.DeleteFile(path);
        }

        _position = new ReplicaPosition(_lineage, position.FileNumber + 1, 0, Math.Max(position.NextTx, found.LastTx + 1), found.After,
            found.LastTx >= position.NextTx ? found.LastCommitTime : position.LastCommitTime);
        _position.Write(_seams.FileSystem, _seams.Directory); // RE4
        return true;
    }

    /// <summary>
    /// Steps 1–2: the object at the position downloaded into <paramref name="path"/> and checked (AO2,
    /// RE5); null when it is missing and no gap is found (RE5).
    /// </summary>
    private async Task<ArchiveObjectHeader?> FetchAsync(ReplicaPosition position, string path, CancellationToken cancellationToken)
    {
        var key = ArchiveKeys.Journal(_lineage, position.FileNumber);
        var header = await ArchiveUpload.DownloadAsync(_destination, key, path, cancellationToken).ConfigureAwait(false); // AO2
        if (header is not { } found)
        {
            await CheckGapAsync(key, position, cancellationToken).ConfigureAwait(false);
            return null;
        }

        try
        {
            Check(found, position, ArchiveUpload.Where(_destination, key));
        }
        catch
        {
            _seams.FileSystem.DeleteFile(path);
            throw;
        }

        return found;
    }

    /// <summary>RE5: the object is this lineage's next journal object and continues the chain.</summary>
    private static void Check(ArchiveObjectHeader header, ReplicaPosition position, string where)
    {
        if (header.Kind != ArchiveObjectKind.JournalFile || header.Lineage != position.Lineage || header.Sequence != position.FileNumber)
        {
            throw new CorruptionException(where, 0, $"AO2: the object is a {header.Kind} of lineage {ArchiveKeys.Lineage(header.Lineage)} numbered " +
                $"{header.Sequence}, where journal file {position.FileNumber} of lineage {ArchiveKeys.Lineage(position.Lineage)} belongs");
        }

        if (position.Before is { } before && !header.Before.AsSpan().SequenceEqual(before))
        {
            throw new CorruptionException(where, ArchiveObjectHeader.BeforeOffset,
                "AO1: the journal object does not continue the log the replica applied (its Before is not the After of the object before it): " +
                "the object was replaced, or two logs were shipped under one lineage");
        }

        if (position.Offset == 0 && header.FirstTx != position.NextTx && header.LastTx >= position.NextTx)
        {
            throw new ReplicaStoppedException($"RE5: journal object {where} starts at transaction {header.FirstTx}, where transaction {position.NextTx} " +
                "comes next: transactions are missing from the shipped log. Open the replica again with ReplicaOptions.Resnapshot (voron follow --resnapshot) to rebuild it from a newer snapshot.");
        }
    }

    /// <summary>Step 3: the object's records from the position on, each after the store's last transaction applied (RE2, RE3).</summary>
    private void Apply(ArchiveObjectHeader header, ReplicaPosition position, string where, CancellationToken cancellationToken) =>
        ReadRecords(header, position, where, record =>
        {
            if (record.TransactionId > _seams.AppliedTransaction())
            {
                _applying = true; // a failure here is the store's refusal, not a break FindBreakAsync sees (RR1)
                _seams.Apply(record, where); // RE2, RE3
                _applying = false;
            }
        }, cancellationToken);

    /// <summary>The object's records from the position on, each given to <paramref name="use"/>; they must run to the header's LastTx (RE5).</summary>
    private void ReadRecords(ArchiveObjectHeader header, ReplicaPosition position, string where, Action<RecoveredRecord> use, CancellationToken cancellationToken)
    {
        var result = JournalReader.Recover(_seams.FileSystem, _staging, _lineage, new JournalPosition(position.FileNumber, position.Offset), position.NextTx,
            record =>
            {
                cancellationToken.ThrowIfCancellationRequested();
                use(record);
            },
            JournalTailRecovery.Strict, lastFileNumber: position.FileNumber);
        if (result.LastTransactionId != header.LastTx)
        {
            throw new CorruptionException(where, ArchiveObjectHeader.LastTxOffset,
                $"RE5: the object's header says its records run to transaction {header.LastTx}, and its content ends after transaction {result.LastTransactionId}");
        }
    }

    /// <summary>RE5: the next object is missing; a later one listed means a gap (looked up again: a listing may be stale, AD4).</summary>
    private async Task CheckGapAsync(string key, ReplicaPosition position, CancellationToken cancellationToken)
    {
        await foreach (var item in _destination.ListAsync(ArchiveKeys.JournalPrefix(_lineage), key, cancellationToken).ConfigureAwait(false))
        {
            if (await ArchiveUpload.ReadHeaderAsync(_destination, key, cancellationToken).ConfigureAwait(false) != null)
            {
                return; // it arrived meanwhile: the next pass reads it
            }

            throw new ReplicaStoppedException(
                $"RE5: journal object {ArchiveUpload.Where(_destination, key)} is missing while a later one ({item.Key}) is there: transactions from " +
                $"{position.NextTx} on are missing from the shipped log (deleted, or retention ran ahead of this replica). Open the replica again " +
                "with ReplicaOptions.Resnapshot (voron follow --resnapshot) to rebuild it from a newer snapshot.");
        }
    }

    /// <summary>RE6: a fork note of another lineage naming this one as its parent.</summary>
    private async Task CheckForkAsync(CancellationToken cancellationToken)
    {
        var forks = await ForksAsync(firstOnly: true, cancellationToken).ConfigureAwait(false);
        if (forks.Count > 0)
        {
            throw ForkError(forks[0].Lineage, forks[0].Fork);
        }
    }

    private ReplicaStoppedException ForkError(ulong lineage, ArchiveObjectHeader fork) => new(
        $"RE6: lineage {ArchiveKeys.Lineage(lineage)} forked from the followed lineage {ArchiveKeys.Lineage(_lineage)} at transaction {fork.LastTx} " +
        "(the primary was restored or replaced, and ships under its new id): this replica cannot follow it. Open a new replica of " +
        $"lineage {ArchiveKeys.Lineage(lineage)} (ReplicaOptions.Lineage) once it has a snapshot, or open this one again with " +
        "ReplicaOptions.Resnapshot (voron follow --resnapshot).");

    /// <summary>The lineages whose fork note names the followed one as their parent, in key order.</summary>
    private async Task<List<(ulong Lineage, ArchiveObjectHeader Fork)>> ForksAsync(bool firstOnly, CancellationToken cancellationToken)
    {
        var forks = new List<(ulong, ArchiveObjectHeader)>();
        string? after = null;
        for (var step = 0; step < 1_000_000; step++) // a step limit: each turn moves past one lineage
        {
            ArchiveObjectInfo? first = null;
            await foreach (var item in _destination.ListAsync("", after, cancellationToken).ConfigureAwait(false))
            {
                first = item;
                break;
            }

            if (first == null || ArchiveKeys.ParseLineage(first.Key) is not { } lineage || first.Key.Length < 17 || first.Key[16] != '/')
            {
                return forks;
            }

            if (lineage != _lineage && await ArchiveUpload.ReadHeaderAsync(_destination, ArchiveKeys.Fork(lineage), cancellationToken).ConfigureAwait(false) is
                { Kind: ArchiveObjectKind.ForkNote } fork && fork.Parent == _lineage)
            {
                forks.Add((lineage, fork));
                if (firstOnly)
                {
                    return forks;
                }
            }

            after = ArchiveKeys.Lineage(lineage) + "/~"; // '~' sorts after every character a key may hold
        }

        return forks;
    }

    private void ResetStaging()
    {

        if (Directory.Exists(_staging))
        {
            Directory.Delete(_staging, recursive: true);
        }

        Directory.CreateDirectory(_staging);
    }

    private static DateTimeOffset? ToTime(long unixMs) => unixMs > 0 ? DateTimeOffset.FromUnixTimeMilliseconds(unixMs) : null;

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        if (_loop != null)
        {
            await _loop.ConfigureAwait(false);
        }

        _stop.Dispose();
        _stopped.TrySetResult(new ObjectDisposedException(nameof(StorageEnvironment), "The replica was disposed."));
    }
}

/// <summary>
/// Where a replica cannot continue (RR1): the stop a pass would make, the journal object at the
/// position (a snapshot must start after it), and the lineages that forked from the followed one
/// (when the break is RE6).
/// </summary>
internal sealed record ReplicaBreak(ReplicaStoppedException Error, long FileNumber, IReadOnlyList<(ulong Lineage, ArchiveObjectHeader Fork)> Forks);

/// <summary>What a <see cref="ReplicaFollower"/> needs from its store, as functions (no reference back to it).</summary>
internal sealed class ReplicaFollowerSeams
{
    public required IFileSystem FileSystem { get; init; }

    /// <summary>The replica's directory (its position file and staging directory are there).</summary>
    public required string Directory { get; init; }

    /// <summary>The store's last transaction (RE4).</summary>
    public required Func<long> AppliedTransaction { get; init; }

    /// <summary>When it committed on the primary (UTC Unix ms; 0 = unknown).</summary>
    public required Func<long> AppliedCommitTime { get; init; }

    /// <summary>Applies one record as a transaction (RE2); the string names the object for errors.</summary>
    public required Action<RecoveredRecord, string> Apply { get; init; }
}
