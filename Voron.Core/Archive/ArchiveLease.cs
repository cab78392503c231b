using System.Security.Cryptography;
using System.Text;

namespace Voron.Archive;

// The writer's lease: one shipper per lineage at a time, held by conditional writes on
// <lineage>/lease (the FORMAT block in ArchiveLeaseRecord.cs) where the destination can make them
// (IArchiveLeaseStore, LW1..LW5).
//
//   state (Status)        how it changes (EnsureAsync, ReleaseAsync)
//   -------------------   ------------------------------------------------------------------------
//   Unknown               before the first pass
//   NotEnforced           the destination lacks IArchiveLeaseStore or fails the check (LS6)
//   Held                  put-if-absent (none there), or If-Match on an expired one, or a renewal (LS2, LS3)
//   HeldByAnother         another holder's unexpired lease, or a renewal refused (LS2, LS4)
//
// LS1. where the lease is enforced, a shipper uploads only while it holds its lineage's lease:
//      the shipper calls EnsureAsync before every upload (ArchiveShipper.ShipCoreAsync).
// LS2. taking: no lease object -> put-if-absent; another holder's lease that has expired by this
//      machine's clock -> a write with If-Match on the version read (a takeover: of two stores
//      racing, the server lets one win); another holder's unexpired lease -> the pass fails with an
//      error naming the holder, commits go on (SH1), and the pass is retried with backoff.
// LS3. renewing: every pass renews (If-Match on the version read, so a change since is seen), and
//      before each upload the lease is renewed when less than half of its duration is left, so
//      every upload starts with at least half of it ahead. An upload that takes longer than that
//      can outlive the lease: keep the duration well above the time one journal file takes to upload.
// LS4. losing: a renewal that finds another holder's record, or whose condition is refused, means
//      the lease was taken (after it expired: a destination down longer than the duration, a
//      machine paused, clocks apart): the pass stops before its next upload with an error naming the
//      new holder. Expiry compares the holder's clock with the reader's: clocks must agree to well
//      within half the duration. AO3 still refuses any object whose bytes differ from one stored.
// LS5. releasing: closing the store writes the lease back expired (If-Match), so another store takes
//      it at once; a release that fails leaves the lease to expire.
// LS6. enforcement is checked once per shipper before the lease is trusted: under a probe key a
//      put-if-absent must succeed, and a second put-if-absent and an If-Match with a wrong version
//      must both be refused; the probe is deleted. A destination without IArchiveLeaseStore, or one
//      that accepts a write it had to refuse (s3rver ignores the conditions, LW4), ships as before
//      with the state NotEnforced, and docs/object-storage.md says what that allows.
// LS7. the lease object is untrusted bytes: a damaged or unknown one stops shipping with an error
//      naming it (never taken over in silence: its holder cannot be known).
// LS8. the holder id is the same for every life of one store on one machine: a hash of the machine's
//      name, the journal archive directory's full path and the lineage (HolderFor). A store
//      restarted after a crash (or a kill) finds its own unexpired lease and takes it back at once
//      instead of waiting out the duration: no other process of this machine can have that store
//      open (its lock file), so the earlier holder is dead. A copy of the store in another directory
//      or on another machine has another id. Two machines with the same name and the same paths are
//      not told apart: give them distinct host names.

/// <summary>The shipper's writer lease on one lineage (LS1..LS8 above).</summary>
internal sealed class ArchiveLease
{
    /// <summary>LS6: a version no write produces (a quoted ETag of another shape than every service's).</summary>
    private const string WrongVersion = "\"voron-lease-probe\"";

    private readonly IArchiveDestination _destination;
    private readonly IArchiveLeaseStore? _store;
    private readonly ulong _lineage;
    private readonly TimeSpan _duration;
    private readonly TimeProvider _clock;
    private readonly string _machine = ArchiveLeaseRecord.CleanMachineName(Environment.MachineName);
    private readonly string _probeId = Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16)); // LS6: new per shipper, so a probe a crash left is never taken for a refusal
    private bool? _enforced;

    // Written by the shipper's pass (one at a time, under its gate); read by Status without a lock.
    private string? _version;
    private DateTimeOffset _expires;
    private volatile StatusSnapshot _status = new(ArchiveLeaseState.Unknown, null);

    /// <param name="destination">Where the lineage's objects and its lease are.</param>
    /// <param name="lineage">The lineage the lease is for.</param>
    /// <param name="duration">How long a taken or renewed lease lasts.</param>
    /// <param name="clock">The clock expiry is read from.</param>
    /// <param name="holder">This shipper's holder id (LS8); null = a new random one (tests' independent shippers).</param>
    public ArchiveLease(IArchiveDestination destination, ulong lineage, TimeSpan duration, TimeProvider clock, string? holder = null)
    {
        Holder = holder ?? Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(16));
        _destination = destination;
        _store = destination as IArchiveLeaseStore;
        _lineage = lineage;
        _duration = duration;
        _clock = clock;
    }

    /// <summary>This shipper's holder id (32 hex digits): the same for every life of one store's archive on one machine (LS8).</summary>
    public string Holder { get; }

    /// <summary>LS8: the holder id of the store whose journal archive is <paramref name="archiveDirectory"/> on this machine.</summary>
    public static string HolderFor(string archiveDirectory, ulong lineage) =>
        Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(
            $"voron archive lease\n{Environment.MachineName}\n{Path.GetFullPath(archiveDirectory)}\n{ArchiveKeys.Lineage(lineage)}")).AsSpan(0, 16));

    public ArchiveLeaseState State => _status.State;

    /// <summary>Who holds it (this shipper or another) and until when, or null when unknown or not enforced.</summary>
    public string? HolderDescription => _status.Holder;

    /// <summary>Until when this shipper holds the lease by its own clock, or null when it does not hold it.</summary>
    public DateTimeOffset? HeldUntil => _version != null ? _expires : null;

    private string Key => ArchiveKeys.Lease(_lineage);

    /// <summary>LS1..LS4: returns once this shipper holds the lease (or it is not enforced), else throws naming the holder.
    /// <paramref name="renew"/> renews whatever is left (the start of a pass); otherwise only when under half is left.</summary>
    public async Task EnsureAsync(bool renew, CancellationToken cancellationToken)
    {
        if (!await EnforcedAsync(cancellationToken).ConfigureAwait(false))
        {
            return;
        }

        if (!renew && _version != null && _clock.GetUtcNow() < _expires - _duration / 2)
        {
            return; // LS3: more than half of it ahead
        }

        var where = ArchiveUpload.Where(_destination, Key);
        for (var attempt = 0; attempt < 3; attempt++)
        {
            var current = await _store!.GetVersionedAsync(Key, cancellationToken).ConfigureAwait(false);
            var record = current == null ? null : ArchiveLeaseRecord.Decode(current.Content, where); // LS7
            var now = _clock.GetUtcNow();
            if (record != null && record.Holder != Holder && (_version != null || now < record.Expires))
            {
                var lost = _version != null;
                _version = null;
                _status = new StatusSnapshot(ArchiveLeaseState.HeldByAnother, record.Describe());
                throw new InvalidOperationException(lost
                    ? $"LS4: this store lost the writer's lease on lineage {ArchiveKeys.Lineage(_lineage)} at {where}: it is now held by {record.Describe()}, " +
                      $"which took it after this store's lease expired. Shipping stopped before the next upload; commits go on. Make sure one store ships " +
                      "to this lineage (stop the other), and keep the destination reachable for less than the lease's duration of outage."
                    : $"LS2: the writer's lease on lineage {ArchiveKeys.Lineage(_lineage)} at {where} is held by {record.Describe()}: another copy of " +
                      "this store ships there. This store does not ship while it is held (commits go on; retried with backoff). Stop the other, or give " +
                      "this store its own destination.");
            }

            var mine = new ArchiveLeaseRecord(Holder, Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(8)), _machine, Environment.ProcessId,
                (now + _duration).ToUnixTimeMilliseconds());
            var version = await _store.PutIfVersionAsync(Key, mine.Encode(), current?.Version, cancellationToken).ConfigureAwait(false);
            if (version != null)
            {
                _version = version;
                _expires = mine.Expires;
                _status = new StatusSnapshot(ArchiveLeaseState.Held, mine.Describe());
                return;
            }

            // Refused: someone wrote it between the read and the write. Read again to name them (LS2, LS4).
        }

        _version = null;
        _status = new StatusSnapshot(ArchiveLeaseState.Unknown, null);
        throw new IOException($"LS2: the writer's lease at {where} changed under every attempt to take it: stores are racing for it. Retried later.");
    }

    /// <summary>LS5: writes the lease back expired when this shipper holds it; failures leave it to expire.</summary>
    public async Task ReleaseAsync(CancellationToken cancellationToken)
    {
        if (_version is not { } version || _store == null)
        {
            return;
        }

        _version = null;
        try
        {
            var expired = new ArchiveLeaseRecord(Holder, Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(8)), _machine, Environment.ProcessId,
                _clock.GetUtcNow().ToUnixTimeMilliseconds());
            await _store.PutIfVersionAsync(Key, expired.Encode(), version, cancellationToken).ConfigureAwait(false);
            _status = new StatusSnapshot(ArchiveLeaseState.Unknown, null);
        }
        catch (Exception)
        {
            // LS5: it expires by itself.
        }
    }

    /// <summary>LS6: once per shipper (retried after a failure to reach the destination).</summary>
    private async Task<bool> EnforcedAsync(CancellationToken cancellationToken)
    {
        if (_enforced is { } known)
        {
            return known;
        }

        if (_store == null)
        {
            _status = new StatusSnapshot(ArchiveLeaseState.NotEnforced, null);
            return (_enforced = false).Value;
        }

        var probe = ArchiveKeys.LeaseProbe(_lineage, _probeId);
        var first = await _store.PutIfVersionAsync(probe, "probe 1\n"u8.ToArray(), null, cancellationToken).ConfigureAwait(false);
        var enforced = first != null &&
            await _store.PutIfVersionAsync(probe, "probe 2\n"u8.ToArray(), null, cancellationToken).ConfigureAwait(false) == null &&
            await _store.PutIfVersionAsync(probe, "probe 3\n"u8.ToArray(), WrongVersion, cancellationToken).ConfigureAwait(false) == null;
        await _destination.DeleteAsync(probe, cancellationToken).ConfigureAwait(false);
        _enforced = enforced;
        if (!enforced)
        {
            _status = new StatusSnapshot(ArchiveLeaseState.NotEnforced, null);
        }

        return enforced;
    }

    private sealed record StatusSnapshot(ArchiveLeaseState State, string? Holder);
}
