namespace Voron;

/// <summary>
/// How recovery treats damage at the end of the journal (<see cref="StorageEnvironmentOptions.JournalTailRecovery"/>).
/// Whatever the choice, damage to a journal record that is known to have been durable — a later
/// record says so, or the damage cannot have been left by a crash — is never discarded silently
/// under the default, and under every choice a record a later one proves durable is reported.
/// docs/durability.md says what survives which damage in each mode.
/// </summary>
public enum JournalTailRecovery
{
    /// <summary>
    /// The default. A last record whose write a crash interrupted — the sectors the disk did not
    /// write read as zeros — is discarded: it was never acknowledged in durable mode (in lazy mode
    /// it is one of the newest commits a power loss may take). A sector that was written and is now
    /// wrong (rot, a misdirected write) is a <see cref="CorruptionException"/>, never a torn write.
    /// Assumes the disk writes each aligned 512-byte sector whole or not at all.
    /// </summary>
    DiscardTornWrite = 0,

    /// <summary>
    /// Report any damage: a torn last record too, and any byte after the end of the log that is not
    /// zero. For users who want to see every crash's leftovers before anything is discarded; after
    /// a crash interrupted a commit, the store opens only once the option is set back to
    /// <see cref="DiscardTornWrite"/>.
    /// </summary>
    Strict = 1,

    /// <summary>
    /// Discard a damaged last record whatever the damage, as format version 1 did: for disks that
    /// can leave a sector half-written or holding garbage after a power loss (they break the
    /// default's assumption, and the default reports such a crash as corruption). Rot in the last
    /// record then loses that commit silently. A record that a later record proves was durable is
    /// still a <see cref="CorruptionException"/>.
    /// </summary>
    DiscardAnyDamage = 2,
}
