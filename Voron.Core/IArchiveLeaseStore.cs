namespace Voron;

/// <summary>
/// An optional capability of an <see cref="IArchiveDestination"/>: small objects replaced only by a
/// writer that names the version it read (compare-and-swap), which is what the shipper's writer
/// lease is made of (LS1..LS8, Voron.Core/Archive/ArchiveLease.cs). A destination that lacks it
/// ships without a lease; docs/object-storage.md says what that allows.
/// </summary>
/// <remarks>
/// The contract every implementation keeps (Voron.Tests/Core/Archive/ArchiveLeaseStoreContract.cs checks it):
/// <list type="bullet">
/// <item>LW1. <see cref="PutIfVersionAsync"/> with a null version stores the object only when there
/// is none (put-if-absent); with a version, only when the object's current version is that one
/// (If-Match). Either way it returns the new version when it stored, null when the condition did not
/// hold, and never stores part of the content.</item>
/// <item>LW2. The version changes whenever the object's bytes change (an ETag, or a hash of the
/// bytes), so a writer that read version V replaces the object only if nobody changed it since. Two
/// writes of identical bytes may share a version: a caller that needs every write told apart puts
/// something unique in each (the lease carries a fresh nonce).</item>
/// <item>LW3. <see cref="GetVersionedAsync"/> returns the whole object and its current version, or
/// null when there is none.</item>
/// <item>LW4. A service that accepts the conditions and ignores them (s3rver) breaks LW1 without an
/// error: the shipper checks that a write that must be refused is refused before it trusts the
/// lease (LS6), and ships without one where it is not.</item>
/// <item>LW5. A failure throws (any exception): nothing is known about whether the write happened.</item>
/// </list>
/// Keys follow <see cref="IArchiveDestination"/>'s rules; the objects are meant to be small (a lease is
/// under a kilobyte) and are read and written whole.
/// </remarks>
public interface IArchiveLeaseStore
{
    /// <summary>The object's bytes and current version, or null when there is none (LW3).</summary>
    Task<ArchiveVersionedObject?> GetVersionedAsync(string key, CancellationToken cancellationToken = default);

    /// <summary>Stores <paramref name="content"/> under <paramref name="key"/> when its current version is
    /// <paramref name="ifVersion"/> (null = when there is no object): the new version, or null when the
    /// condition did not hold (LW1).</summary>
    Task<string?> PutIfVersionAsync(string key, ReadOnlyMemory<byte> content, string? ifVersion, CancellationToken cancellationToken = default);
}

/// <summary>A small object read with its version (<see cref="IArchiveLeaseStore"/>).</summary>
/// <param name="Content">Its bytes.</param>
/// <param name="Version">Its current version (an ETag), for <see cref="IArchiveLeaseStore.PutIfVersionAsync"/>.</param>
public sealed record ArchiveVersionedObject(byte[] Content, string Version);
