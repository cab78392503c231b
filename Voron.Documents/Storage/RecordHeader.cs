namespace Voron.Documents.Storage;

/// <summary>A validated record header (DocumentRecord.ReadHeader).</summary>
internal readonly record struct RecordHeader(long Version, long Ticks, bool Compressed, int CollectionLength, int JsonLength, int BodyOffset)
{
    public DateTimeOffset LastModified => new(Ticks, TimeSpan.Zero);
}
