namespace Voron.SqliteVfs.Documents;

/// <summary>
/// SD6: what a write must find stored when it commits: <see cref="Version"/> (0: no document), or,
/// for a document whose newest state is an in-flight commit of the same database, whatever version
/// that commit gave it (<see cref="Parent"/>, <see cref="ParentIndex"/>; resolved when it applies).
/// </summary>
internal readonly record struct Expectation(long Version, DocumentCommit? Parent = null, int ParentIndex = -1)
{
    public long Resolve()
    {
        if (Parent == null)
        {
            return Version;
        }

        var results = Parent.Results ?? throw new InvalidOperationException("The commit this transaction built on has not been applied."); // V8 fails the version first
        return results[ParentIndex].Version;
    }
}

/// <summary>One document change of a SQL transaction: the new JSON (null: delete) and what it expects to replace.</summary>
internal sealed record PendingDocument(string Id, byte[] IdBytes, string Collection, byte[]? Json, Expectation Expected)
{
    public bool IsDelete => Json == null;
}

/// <summary>
/// SD7: the document changes of one connection's write transaction on one database, shared by
/// every voron_docs table of the database on that connection, with an undo log of the whole
/// transaction: <see cref="Position"/> names a point of it, <see cref="UndoTo"/> goes back to one.
/// Which point a savepoint is, each table decides (<see cref="TableSavepoints"/>).
/// </summary>
internal sealed class PendingDocuments : Databases.IDocumentChanges
{
    private readonly Dictionary<string, PendingDocument> _byId = new(StringComparer.Ordinal);
    private readonly List<(string Id, PendingDocument? Before)> _log = [];

    public bool IsEmpty => _byId.Count == 0;

    public IEnumerable<PendingDocument> All => _byId.Values;

    /// <summary>The undo log's end: every change made from here on is undone by <see cref="UndoTo"/> of this position.</summary>
    public int Position => _log.Count;

    public bool TryGet(string id, out PendingDocument document) => _byId.TryGetValue(id, out document!);

    public void Set(PendingDocument document)
    {
        _byId.TryGetValue(document.Id, out var before);
        _log.Add((document.Id, before));
        _byId[document.Id] = document;
    }

    /// <summary>Undoes every change made since <paramref name="position"/>, newest first (a position past the end undoes nothing).</summary>
    public void UndoTo(int position)
    {
        for (var i = _log.Count - 1; i >= position; i--)
        {
            var (id, before) = _log[i];
            if (before == null)
            {
                _byId.Remove(id);
            }
            else
            {
                _byId[id] = before;
            }
        }

        if (position < _log.Count)
        {
            _log.RemoveRange(position, _log.Count - position);
        }
    }

    public void Clear()
    {
        _byId.Clear();
        _log.Clear();
    }
}
