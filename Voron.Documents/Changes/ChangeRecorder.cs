using Voron.Documents.Storage;

namespace Voron.Documents.Changes;

/// <summary>
/// What a merged write (WriteBatch, BulkBatch) calls to log its changes (CF1): opened once per
/// run of the operation from the transaction's own "feed.on", so every write path logs exactly
/// when the store's feed is on, whichever options the writer was built with.
/// </summary>
internal readonly struct ChangeRecorder
{
    private readonly Tree? _changes;

    private ChangeRecorder(Tree? changes) => _changes = changes;

    /// <summary>The recorder of <paramref name="transaction"/>: a no-op while "feed.on" is not 1.</summary>
    public static ChangeRecorder Open(WriteTransaction transaction, Tree meta) =>
        new(meta.TryGet(DocumentTrees.FeedOnKey, out var on) && on.Length == 1 && on[0] == 1 ? transaction.CreateTree(DocumentTrees.Changes) : null);

    public void Stored(long version, long ticks, PreparedWrite write) =>
        Append(version, DocumentChangeKind.Stored, ticks, write.CollectionBytes, write.IdBytes);

    public void Deleted(long version, long ticks, string collection, PreparedWrite write) =>
        Append(version, DocumentChangeKind.Deleted, ticks, System.Text.Encoding.UTF8.GetBytes(collection), write.IdBytes);

    private void Append(long version, DocumentChangeKind kind, long ticks, ReadOnlySpan<byte> collection, ReadOnlySpan<byte> id)
    {
        if (_changes != null)
        {
            ChangeLog.Append(_changes, version, kind, ticks, collection, id);
        }
    }
}
