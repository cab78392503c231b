using Voron.Documents.Serialization;

namespace Voron.Documents.Sessions;

/// <summary>One document a session knows: its identity-map slot, pending change and what it last saw stored.</summary>
internal sealed class SessionEntry(string id, byte[] idBytes)
{
    public string Id { get; } = id;

    public byte[] IdBytes { get; } = idBytes;

    public EntryState State { get; set; }

    /// <summary>The collection, when known (a delete by id of a document never loaded does not know it).</summary>
    public string? Collection { get; set; }

    public byte[]? CollectionBytes { get; set; }

    /// <summary>The tracked entity and its type (typed documents).</summary>
    public object? Entity { get; set; }

    public DocumentType? Type { get; set; }

    /// <summary>The JSON of a pending raw store.</summary>
    public byte[]? RawJson { get; set; }

    /// <summary>The stored JSON as last loaded or saved (old index entries; the properties its type does not model, S2).</summary>
    public byte[]? OriginalJson { get; set; }

    /// <summary>The entity's serialization when it was loaded or last saved: it changed iff its serialization now differs (S1). Null until the first save needs it for a loaded entity.</summary>
    public byte[]? Snapshot { get; set; }

    /// <summary>The entity's serialization the save in progress writes (becomes <see cref="Snapshot"/> when acknowledged).</summary>
    public byte[]? PendingSnapshot { get; set; }

    /// <summary>The stored version last seen (0: none seen, a new document).</summary>
    public long Version { get; set; }

    public long Ticks { get; set; }

    /// <summary>The expiry (UTC ticks, 0: none) of the record last loaded or saved: kept by later saves that set none (XE4).</summary>
    public long ExpiresTicks { get; set; }

    /// <summary>An expiry the session set (SetExpiration, StoreRaw's expiresAt) for the next save: 0 removes it; null: none set.</summary>
    public long? PendingExpiresTicks { get; set; }

    /// <summary>The version a caller required explicitly.</summary>
    public long? ExpectedVersion { get; set; }

    /// <summary>The id was generated: the document must be new (expected version 0).</summary>
    public bool Generated { get; set; }
}
