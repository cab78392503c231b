namespace Voron;

/// <summary>When a commit is acknowledged, and so what a crash can take away (docs/durability.md).</summary>
public enum DurabilityMode
{
    /// <summary>
    /// The default: a commit returns (or a merged operation completes) only after the journal
    /// write that holds it has been flushed to the disk (fdatasync). A crash, a kill or a power
    /// loss loses nothing acknowledged.
    /// </summary>
    Durable,

    /// <summary>
    /// A commit is acknowledged once its journal record is handed to the OS; the journal is
    /// flushed every <see cref="StorageEnvironmentOptions.LazyFlushInterval"/>. A process crash
    /// loses nothing (the OS has the writes); a power loss or OS crash may lose the commits of the
    /// last interval — whole transactions only, newest first: it never corrupts the store and
    /// never leaves a hole (an older commit missing while a newer one survives).
    /// </summary>
    Lazy,
}
