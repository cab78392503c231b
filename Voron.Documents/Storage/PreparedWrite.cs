namespace Voron.Documents.Storage;

/// <summary>
/// One document change, prepared outside the transaction (serialized, validated, its record
/// built and its index entries computed) so the merged operation (<see cref="WriteBatch"/>) only
/// checks and writes. Only <see cref="WritePort"/> builds one (WP1).
/// </summary>
internal sealed class PreparedWrite
{
    public required string Id { get; init; }

    public required byte[] IdBytes { get; init; }

    /// <summary>The collection; null for a delete by id whose collection the session does not know.</summary>
    public string? Collection { get; init; }

    public byte[]? CollectionBytes { get; init; }

    /// <summary>The record to write (DocumentRecord; version and time stamped in the transaction), or null for a delete.</summary>
    public byte[]? Record { get; init; }

    /// <summary>The JSON the record holds (for the session's change tracking after the save).</summary>
    public byte[]? Json { get; init; }

    /// <summary>
    /// <see cref="Json"/> was checked for the text rules already (StoreRaw validates the whole
    /// object): the save does not check it again. False for serializer output (SV1 checks it).
    /// </summary>
    public bool TextChecked { get; init; }

    /// <summary>
    /// The version the stored document must have (0: none may exist), or null for no check (I3).
    /// Set again by each run of <see cref="WritePort.ApplyPrepared"/> for a SQL change built on a commit in flight.
    /// </summary>
    public long? ExpectedVersion { get; set; }

    /// <summary>The new entries per index of the collection, computed with <see cref="WriteBatch.Catalog"/> (I2).</summary>
    public byte[][][]? NewEntries { get; set; }

    /// <summary>
    /// The entries of the version the session loaded (<see cref="HintVersion"/>), computed from the
    /// JSON it loaded: used instead of parsing the stored JSON again when that version is still the
    /// stored one.
    /// </summary>
    public byte[][][]? HintEntries { get; set; }

    public long HintVersion { get; init; }

    /// <summary>The JSON of version <see cref="HintVersion"/>, as the session loaded it, or null.</summary>
    public byte[]? HintJson { get; init; }

    /// <summary>The n of an id of the shape "&lt;prefix&gt;/&lt;n&gt;" (I5), else 0.</summary>
    public long GeneratedNumber { get; init; }

    /// <summary>The prefix of an id of the shape "&lt;prefix&gt;/&lt;n&gt;": the collection whose counter n raises, whatever collection the document is in (I5).</summary>
    public string? GeneratedPrefix { get; init; }

    /// <summary>A prepared write's <see cref="GeneratedNumber"/> and <see cref="GeneratedPrefix"/> for <paramref name="id"/>.</summary>
    public static (long Number, string? Prefix) GeneratedShape(string id) =>
        DocumentNames.TryParseGeneratedShape(id, out var prefix, out var n) ? (n, prefix) : (0, null);

    /// <summary>
    /// A sweeper's delete (XE3): applied only when the stored record still expires at or before
    /// <see cref="ExpiryCutoff"/>; otherwise skipped without error (the document was written again,
    /// or its expiry moved, after the sweep read it).
    /// </summary>
    public bool ExpiredOnly { get; init; }

    /// <summary>The sweep's "now" (UTC ticks), for <see cref="ExpiredOnly"/>.</summary>
    public long ExpiryCutoff { get; init; }

    public bool IsDelete => Record == null;
}
