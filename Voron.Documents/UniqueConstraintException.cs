namespace Voron.Documents;

/// <summary>
/// A unique index already holds the value a document would add, for another document. Nothing
/// of the session (or of the index build) was saved.
/// </summary>
public sealed class UniqueConstraintException : Exception
{
    /// <summary>Document <paramref name="id"/> would add <paramref name="value"/> to unique index <paramref name="index"/> of <paramref name="collection"/>, where <paramref name="existingId"/> holds it.</summary>
    public UniqueConstraintException(string collection, string index, string value, string id, string existingId)
        : base($"Unique index '{index}' on collection '{collection}' already has the value {value} (document '{existingId}'); document '{id}' cannot take it. Nothing of the session was saved.")
    {
        Collection = collection;
        Index = index;
        Value = value;
        Id = id;
        ExistingId = existingId;
    }

    /// <summary>The collection the index belongs to.</summary>
    public string Collection { get; }

    /// <summary>The index's name.</summary>
    public string Index { get; }

    /// <summary>The duplicated value, as JSON (a compound index: a JSON array of its values).</summary>
    public string Value { get; }

    /// <summary>The document that tried to take the value.</summary>
    public string Id { get; }

    /// <summary>The document that holds it.</summary>
    public string ExistingId { get; }
}
