using System.Text;
using Voron.Documents;
using Voron.Documents.Storage;

namespace Voron.SqliteVfs.Documents;

/// <summary>One document as a transaction sees it.</summary>
/// <param name="Id">The document's id.</param>
/// <param name="Collection">Its collection.</param>
/// <param name="Json">Its JSON (empty when read without it).</param>
/// <param name="Ticks">When it was last written (UTC ticks), or null while not assigned.</param>
/// <param name="Version">The stored version, or null while it is not assigned yet (the transaction's own change, a commit in flight).</param>
/// <param name="Expected">What a change of this document must find stored at commit (SD6).</param>
/// <param name="InFlight">The commit in flight that wrote this state (V4: a writer's snapshot), or null.</param>
internal sealed record DocumentState(string Id, string Collection, byte[] Json, long? Version, long? Ticks, Expectation Expected, DocumentCommit? InFlight = null)
{
    /// <summary>
    /// V15: the version and time of this state. For a commit in flight they are assigned when it
    /// applies, so this waits until it is durable: a writer reads the same values in every
    /// statement, and an If-Match (WHERE version = ?) can match. Null for the transaction's own
    /// changes.
    /// </summary>
    public (long? Version, long? Ticks) Stamp()
    {
        if (Version != null || InFlight == null)
        {
            return (Version, Ticks);
        }

        var result = InFlight.DurableResult(Expected.ParentIndex, Id);
        return (result.Version, result.Ticks);
    }
}

/// <summary>
/// SD3: the documents a SQL transaction reads: the store snapshot of its database's read
/// transaction (V2), the document changes of the database's commits in flight after it, then the
/// transaction's own changes (read-your-writes). Used by one connection at a time.
/// </summary>
internal sealed class DocumentView(DocumentStore store, ReadTransaction snapshot, IReadOnlyList<DocumentCommit> inFlight, PendingDocuments? own, IDisposable? owned = null) : IDisposable
{
    /// <summary>Releases a snapshot taken for this view alone (a statement that reads documents without a lock on its database).</summary>
    public void Dispose() => owned?.Dispose();

    /// <summary>"Now" for expiry (XE1), read once: every row of a statement's cursor is judged at the same instant.</summary>
    private long? _now;

    public DocumentStore Store { get; } = store;

    /// <summary>The documents' read port over the store snapshot (RP1): how this view reads stored documents and index entries.</summary>
    public ReadPort Stored { get; } = new(store, snapshot);

    public PendingDocuments? Own { get; } = own;

    /// <summary>Whether changes not in the store snapshot touch <paramref name="collection"/> (or any, for null).</summary>
    public bool HasOverlay(string? collection)
    {
        if (Own != null && Own.All.Any(c => collection == null || c.Collection == collection))
        {
            return true;
        }

        return inFlight.Any(commit => commit.Changes.Any(c => collection == null || c.Collection == collection));
    }

    /// <summary>The ids of <paramref name="collection"/> changed outside the snapshot (stored or deleted there), in UTF-8 order.</summary>
    public SortedSet<string> OverlayIds(string collection)
    {
        var ids = new SortedSet<string>(Utf8Order.Instance); // SD4: the order SQL reads ids in
        foreach (var commit in inFlight)
        {
            foreach (var change in commit.Changes)
            {
                if (change.Collection == collection)
                {
                    ids.Add(change.Id);
                }
            }
        }

        if (Own != null)
        {
            foreach (var change in Own.All)
            {
                if (change.Collection == collection)
                {
                    ids.Add(change.Id);
                }
            }
        }

        return ids;
    }

    /// <summary>The document <paramref name="id"/> as this transaction sees it, or null (none, or deleted).</summary>
    public DocumentState? Find(string id, byte[] idBytes, bool readJson = true)
    {
        if (Own != null && Own.TryGet(id, out var own))
        {
            return own.Json == null ? null : new DocumentState(id, own.Collection, own.Json, null, null, own.Expected);
        }

        for (var i = inFlight.Count - 1; i >= 0; i--)
        {
            if (inFlight[i].TryFind(id, out var change, out var position))
            {
                if (change.Json == null)
                {
                    return null;
                }

                var result = inFlight[i].IsDurable ? inFlight[i].Results?[position] : null;
                return new DocumentState(id, change.Collection, change.Json, result?.Version, result?.Ticks, new Expectation(0, inFlight[i], position), inFlight[i]);
            }
        }

        return FindStored(id, idBytes, readJson);
    }

    /// <summary>
    /// SD6: what a new document <paramref name="id"/> must find stored at commit when this
    /// transaction sees none: the version this transaction deleted, if it deleted one; else none
    /// (a delete in flight leaves none either).
    /// </summary>
    public Expectation ExpectedForAbsent(string id) =>
        Own != null && Own.TryGet(id, out var own) && own.IsDelete ? own.Expected : new Expectation(0);

    /// <summary>The document as the store snapshot holds it (XE1: expired documents are absent from the view; an INSERT of the id replaces the record, XE6).</summary>
    public DocumentState? FindStored(string id, byte[] idBytes, bool readJson = true) =>
        Stored.Find(id, idBytes, readJson, _now ??= Store.Options.TimeProvider.GetUtcNow().UtcTicks) is { } stored
            ? new DocumentState(id, stored.Collection, stored.Json, stored.Version, stored.Ticks, new Expectation(stored.Version))
            : null;

    /// <summary>The ids of <paramref name="collection"/> in the store snapshot, in id order, from <paramref name="from"/> (inclusive) to <paramref name="to"/> (exclusive), either end open when null.</summary>
    public IEnumerable<byte[]> StoredIds(string collection, byte[]? from, byte[]? to, bool descending) =>
        Stored.Ids(collection, from, to, descending);

    public static string IdText(byte[] idBytes) => Encoding.UTF8.GetString(idBytes);
}
