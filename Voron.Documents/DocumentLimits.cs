namespace Voron.Documents;

/// <summary>
/// The fixed limits of the document format. Past each one, the call that would break it throws
/// <see cref="DocumentLimitException"/> (an <see cref="ArgumentException"/>) and nothing is stored.
/// </summary>
/// <remarks>
/// The budget behind the numbers: a store key is at most <see cref="Constants.MaxKeySize"/>
/// (1,024) bytes, and an index entry's key is the encoded indexed values followed by the
/// document id, so <see cref="MaxIdBytes"/> + <see cref="MaxIndexKeyBytes"/> must fit in it.
/// Tree names (at most 256 bytes) carry the collection and index names.
/// </remarks>
public static class DocumentLimits
{
    /// <summary>The longest document id, in UTF-8 bytes. Ids are 1 to 512 bytes, compared ordinally (case-sensitive).</summary>
    public const int MaxIdBytes = 512;

    /// <summary>The longest collection name, in UTF-8 bytes.</summary>
    public const int MaxCollectionNameBytes = 128;

    /// <summary>The longest index name, in UTF-8 bytes.</summary>
    public const int MaxIndexNameBytes = 64;

    /// <summary>
    /// The most bytes one index entry's encoded values may take (the key encoding is in
    /// Indexing/IndexKey.cs: a string takes its UTF-8 length plus 3 bytes, a number 10 or 19).
    /// </summary>
    public const int MaxIndexKeyBytes = 480;

    /// <summary>The most members (JSON paths) one compound index may have.</summary>
    public const int MaxIndexPaths = 8;

    /// <summary>The most entries one document may put in one multikey index (one per array element).</summary>
    public const int MaxIndexEntriesPerDocument = 4096;

    /// <summary>The deepest nesting of objects and arrays a stored JSON document may have.</summary>
    public const int MaxJsonDepth = 64;

    /// <summary>The default of <see cref="DocumentStoreOptions.MaxDocumentBytes"/>: 16 MiB of UTF-8 JSON.</summary>
    public const int DefaultMaxDocumentBytes = 16 << 20;

    /// <summary>The largest <see cref="DocumentStoreOptions.MaxDocumentBytes"/> may be set to: 256 MiB.</summary>
    public const int MaxDocumentBytesCeiling = 256 << 20;
}
