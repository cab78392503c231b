namespace Voron.Documents;

/// <summary>
/// Optimistic concurrency: a store or delete expected a document version that was not the
/// stored one (another writer got there first). Nothing of the session was saved; its pending
/// changes are kept. Load the document again (in a new session, or after
/// <see cref="IAsyncDocumentSession.Clear"/>) and retry, or report a conflict (HTTP 409/412).
/// </summary>
public sealed class ConcurrencyException : Exception
{
    /// <summary>Document <paramref name="id"/> was expected at <paramref name="expectedVersion"/> and is at <paramref name="actualVersion"/> (0: no document).</summary>
    public ConcurrencyException(string id, long expectedVersion, long actualVersion)
        : base(Describe(id, expectedVersion, actualVersion))
    {
        Id = id;
        ExpectedVersion = expectedVersion;
        ActualVersion = actualVersion;
    }

    /// <summary>The document's id.</summary>
    public string Id { get; }

    /// <summary>The version the session expected; 0 means "the document must not exist".</summary>
    public long ExpectedVersion { get; }

    /// <summary>The version stored when the session was saved; 0 means the document does not exist.</summary>
    public long ActualVersion { get; }

    private static string Describe(string id, long expected, long actual)
    {
        var wanted = expected == 0 ? "no document (a new one)" : $"version {expected}";
        var found = actual == 0 ? "none exists" : $"the stored version is {actual}";
        return $"Concurrency conflict on document '{id}': the session expected {wanted}, but {found}. Nothing of the session was saved; reload the document and retry.";
    }
}
