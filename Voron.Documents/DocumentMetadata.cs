namespace Voron.Documents;

/// <summary>What the store keeps beside a document's JSON.</summary>
/// <param name="Id">The document's id (unique in the store, ordinal, case-sensitive).</param>
/// <param name="Collection">The collection it belongs to.</param>
/// <param name="Version">
/// Raised by every write: a number unique across the store and growing with each write, so a
/// later write of any document has a larger version. Send it to clients (an HTTP ETag) and back as
/// the expected version of the next write.
/// </param>
/// <param name="LastModified">When the write that made this version was saved (UTC).</param>
public sealed record DocumentMetadata(string Id, string Collection, long Version, DateTimeOffset LastModified)
{
    /// <summary>When the document expires (UTC): from then on reads treat it as absent and the sweeper deletes it. Null: it does not expire.</summary>
    public DateTimeOffset? Expires { get; init; }
}
