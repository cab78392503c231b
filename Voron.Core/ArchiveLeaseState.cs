namespace Voron;

/// <summary>
/// The shipper's writer lease on its lineage (<see cref="ArchiveShippingStatus.Lease"/>): one store
/// ships to a lineage at a time where the destination makes conditional writes (<see cref="IArchiveLeaseStore"/>).
/// docs/object-storage.md says what happens where it does not.
/// </summary>
public enum ArchiveLeaseState
{
    /// <summary>No shipping pass has run yet.</summary>
    Unknown,

    /// <summary>This store holds the lease and ships.</summary>
    Held,

    /// <summary>Another store holds it (<see cref="ArchiveShippingStatus.LeaseHolder"/> names it): this store does not ship.</summary>
    HeldByAnother,

    /// <summary>The destination cannot make the conditional writes a lease needs, or ignores them: this store ships without a lease.</summary>
    NotEnforced,
}
