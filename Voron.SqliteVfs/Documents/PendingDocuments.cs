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
/// SD7: the document changes of one connection's write transaction on one database, with SQLite's
/// savepoints: <see cref="Savepoint"/> marks, <see cref="RollbackTo"/> undoes back to a mark (a
/// statement that failed part-way, ROLLBACK TO), <see cref="Release"/> forgets marks. Shared by
/// every voron_docs table of the database on that connection (SQLite calls each of them; the
/// calls are idempotent).
/// </summary>
internal sealed class PendingDocuments
{
    private readonly Dictionary<string, PendingDocument> _byId = new(StringComparer.Ordinal);
    private readonly List<(string Id, PendingDocument? Before)> _log = [];
    private readonly List<(int Level, int Position)> _marks = [];

    public bool IsEmpty => _byId.Count == 0;

    public IEnumerable<PendingDocument> All => _byId.Values;

    public bool TryGet(string id, out PendingDocument document) => _byId.TryGetValue(id, out document!);

    public void Set(PendingDocument document)
    {
        _byId.TryGetValue(document.Id, out var before);
        if (_marks.Count > 0)
        {
            _log.Add((document.Id, before));
        }

        _byId[document.Id] = document;
    }

    public void Savepoint(int level)
    {
        _marks.RemoveAll(m => m.Level >= level);
        _marks.Add((level, _log.Count));
    }

    public void Release(int level)
    {
        _marks.RemoveAll(m => m.Level >= level);
        if (_marks.Count == 0)
        {
            _log.Clear();
        }
    }

    public void RollbackTo(int level)
    {
        var mark = _marks.FindLast(m => m.Level <= level);
        var position = _marks.Count == 0 ? 0 : (mark == default && _marks[0].Level > level ? 0 : mark.Position);
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

        _log.RemoveRange(position, _log.Count - position);
        _marks.RemoveAll(m => m.Level > level);
    }

    public void Clear()
    {
        _byId.Clear();
        _log.Clear();
        _marks.Clear();
    }
}
