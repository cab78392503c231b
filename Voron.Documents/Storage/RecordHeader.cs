namespace Voron.Documents.Storage;

/// <summary>A validated record header (DocumentRecord.ReadHeader).</summary>
/// <param name="Version">The document's version (DR5).</param>
/// <param name="Ticks">Last-modified, UTC ticks (DR6).</param>
/// <param name="Compressed">The body is an LZ4 block.</param>
/// <param name="CollectionLength">The collection name's length in bytes.</param>
/// <param name="JsonLength">The JSON's length uncompressed.</param>
/// <param name="BodyOffset">Where the body starts (after the collection name and, with one, the expiry).</param>
/// <param name="ExpiresTicks">UTC ticks at and after which the document counts as absent (the Expires flag); 0: it does not expire.</param>
internal readonly record struct RecordHeader(long Version, long Ticks, bool Compressed, int CollectionLength, int JsonLength, int BodyOffset, long ExpiresTicks = 0)
{
    public DateTimeOffset LastModified => new(Ticks, TimeSpan.Zero);

    /// <summary>The expiry, or null.</summary>
    public DateTimeOffset? Expires => ExpiresTicks == 0 ? null : new DateTimeOffset(ExpiresTicks, TimeSpan.Zero);

    /// <summary>XE1: whether the document counts as absent for a reader at <paramref name="nowTicks"/> (its expiry is at or before now).</summary>
    public bool IsExpired(long nowTicks) => ExpiresTicks != 0 && ExpiresTicks <= nowTicks;
}
