namespace Voron.Documents;

/// <summary>One committed change of the store's change feed (<see cref="DocumentStore.Changes"/>).</summary>
/// <param name="Version">The version the write took: unique across the store and growing with every write, so it is the change's position in the feed (resume after it).</param>
/// <param name="Id">The document's id.</param>
/// <param name="Collection">The document's collection.</param>
/// <param name="Kind">Stored or deleted.</param>
/// <param name="LastModified">When the write was saved (UTC).</param>
public sealed record DocumentChange(long Version, string Id, string Collection, DocumentChangeKind Kind, DateTimeOffset LastModified)
{
    /// <summary>
    /// The JSON of this version when asked for (includeJson) and the document still holds this
    /// version; null for deletes, and for versions a later write replaced (a later change follows).
    /// </summary>
    public ReadOnlyMemory<byte>? Json { get; init; }
}
