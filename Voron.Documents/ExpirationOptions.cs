namespace Voron.Documents;

/// <summary>
/// Document expiration (<see cref="DocumentStoreOptions.Expiration"/>): a document may carry an
/// expiry time (<see cref="IAsyncDocumentSession.SetExpiration{T}(T, DateTimeOffset?)"/>, the
/// <c>expiresAt</c> of StoreRaw, or <see cref="JsonField"/>). From that time on loads, queries, the
/// SQL <c>voron_docs</c> view and exports treat it as absent; a background sweeper then deletes it
/// as an ordinary delete (indexes and collection updated).
/// </summary>
public sealed class ExpirationOptions
{
    /// <summary>Whether the background sweeper runs (default true). Expired documents are hidden from reads either way; <see cref="DocumentStore.SweepExpiredAsync"/> sweeps on demand.</summary>
    public bool Enabled { get; set; } = true;

    /// <summary>How long the sweeper waits between sweeps: positive and at most <see cref="MaxSweepInterval"/> (about 49.7 days); default 60 s.</summary>
    public TimeSpan SweepInterval { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>Deletes per merged operation (one transaction shared with other sessions' saves): 1 to 10,000, default 256.</summary>
    public int BatchSize { get; set; } = 256;

    /// <summary>
    /// A top-level JSON property holding the expiry as an ISO 8601 date-time string (for example
    /// <c>"expiresAt": "2026-12-01T00:00:00Z"</c>); when set, every store (sessions, bulk insert,
    /// import) reads the expiry from it: a missing or null property means none, any other value
    /// that is not a date-time fails the save. An explicit
    /// <see cref="IAsyncDocumentSession.SetExpiration{T}(T, DateTimeOffset?)"/> wins over it. Null (default): no field.
    /// </summary>
    public string? JsonField { get; set; }

    /// <summary>The longest <see cref="SweepInterval"/>: the longest wait a timer takes (uint.MaxValue - 1 milliseconds, about 49.7 days).</summary>
    internal static readonly TimeSpan MaxSweepInterval = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    internal ExpirationOptions Clone() => (ExpirationOptions)MemberwiseClone();

    internal void Validate()
    {
        if (SweepInterval <= TimeSpan.Zero)
        {
            throw new ArgumentException("DocumentStoreOptions.Expiration.SweepInterval must be positive.");
        }

        if (SweepInterval > MaxSweepInterval)
        {
            // a longer timer throws at every wait, and the sweeper would spin on the error
            throw new ArgumentException($"DocumentStoreOptions.Expiration.SweepInterval must be at most {MaxSweepInterval} (uint.MaxValue - 1 milliseconds); it is {SweepInterval}.");
        }

        if (BatchSize is < 1 or > 10_000)
        {
            throw new ArgumentException($"DocumentStoreOptions.Expiration.BatchSize must be 1 to 10,000; it is {BatchSize:N0}.");
        }

        if (JsonField != null && (JsonField.Length == 0 || JsonField.Length > 256 || JsonField.Any(char.IsControl) || JsonField.Contains('.') || JsonField.Trim() != JsonField))
        {
            throw new ArgumentException($"DocumentStoreOptions.Expiration.JsonField must be a top-level property name (1 to 256 characters, no control characters, no '.', no leading or trailing spaces); it is '{JsonField}'.");
        }
    }
}
