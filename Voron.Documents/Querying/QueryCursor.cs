using System.Text;
using Voron.Documents.Indexing;
using Voron.Documents.Storage;

namespace Voron.Documents.Querying;

/// <summary>
/// Runs a <see cref="QueryPlan"/> over one read transaction (I6), yielding matching documents one
/// at a time. <see cref="IdBytes"/> and <see cref="Json"/> are valid until the next
/// <see cref="MoveNext()"/>. With an <see cref="IQueryResultSink"/>, each result's JSON is handed
/// over while its record is at hand: straight from the page when stored plain, so a result is
/// neither looked up twice nor copied before it is read. Without one, the JSON is copied (or
/// decoded) into a buffer reused per result. A cursor that only counts (<c>readsJson</c> false)
/// copies nothing it does not filter on. The transaction must stay open while the cursor is used.
/// Not thread-safe.
/// </summary>
internal sealed class QueryCursor : IDisposable
{
    private readonly ReadTransaction _transaction;
    private readonly QuerySpec _spec;
    private readonly QueryPlan _plan;
    private readonly string _storePath;
    private readonly Tree? _docs;
    private readonly TreeIterator? _iterator;
    private readonly JsonPathExtractor? _extractor;
    private readonly int[] _documentSlots;
    private readonly int[] _sortSlots;
    private readonly HashSet<byte[]>? _seen;
    private readonly int _components;
    private List<(byte[] Id, byte[][] Keys)>? _sorted;
    private int _sortedPosition;
    private bool _started;
    private bool _done;
    private int _skipped;
    private int _returned;
    private readonly bool _readsJson;
    private readonly long _nowTicks;
    private byte[] _json = [];
    private byte[] _currentId = [];
    private int _currentIdLength;
    private string? _currentIdText;
    private RecordHeader _header;
    private bool _jsonReady;

    /// <summary>A cursor running <paramref name="plan"/> for <paramref name="spec"/> over <paramref name="transaction"/>.</summary>
    /// <param name="transaction">The snapshot (I6), open while the cursor is used.</param>
    /// <param name="spec">The query.</param>
    /// <param name="plan">Its plan.</param>
    /// <param name="storePath">For errors.</param>
    /// <param name="readsJson">False for a cursor that only counts.</param>
    /// <param name="nowTicks">The reader's "now" (UTC ticks): a document whose expiry is at or before it is skipped (XE1), before Skip and Take count it.</param>
    public QueryCursor(ReadTransaction transaction, QuerySpec spec, QueryPlan plan, string storePath, bool readsJson = true, long nowTicks = 0)
    {
        _nowTicks = nowTicks;
        _readsJson = readsJson;
        _transaction = transaction;
        _spec = spec;
        _plan = plan;
        _storePath = storePath;
        _docs = transaction.OpenTree(DocumentTrees.Documents);
        var source = plan.Kind switch
        {
            PlanKind.IndexRange => transaction.OpenTree(plan.Index!.TreeName),
            PlanKind.IdLookup => null,
            _ => transaction.OpenTree(DocumentTrees.CollectionTree(spec.Collection)),
        };
        _iterator = source?.Iterate();
        _components = plan.Index?.ComponentCount ?? 0;
        var paths = plan.DocumentConditions.Select(c => c.Path!).Concat(plan.SortInMemory?.Where(o => !o.IsId).Select(o => o.Path!) ?? []).Distinct().ToList();
        _extractor = paths.Count > 0 ? new JsonPathExtractor(paths) : null;
        _documentSlots = [.. plan.DocumentConditions.Select(c => paths.IndexOf(c.Path!))];
        _sortSlots = [.. (plan.SortInMemory ?? []).Select(o => o.IsId ? -1 : paths.IndexOf(o.Path!))];
        _seen = plan.Dedup ? new HashSet<byte[]>(ByteComparer.Instance) : null;
        if (source == null && plan.Kind != PlanKind.IdLookup)
        {
            _done = true; // the collection (or the index tree) does not exist yet: no results
        }
    }

    public ReadOnlySpan<byte> IdBytes => _currentId.AsSpan(0, _currentIdLength);

    /// <summary>The current id as a string, decoded once per result.</summary>
    public string Id => _currentIdText ??= Encoding.UTF8.GetString(IdBytes);

    public RecordHeader Header => _header;

    /// <summary>The current document's JSON (for a cursor that reads JSON).</summary>
    public ReadOnlySpan<byte> Json
    {
        get
        {
            if (!_jsonReady)
            {
                throw new InvalidOperationException("This cursor does not read documents' JSON.");
            }

            return _json.AsSpan(0, _header.JsonLength);
        }
    }

    public DocumentMetadata Metadata => new(Id, _spec.Collection, _header.Version, _header.LastModified) { Expires = _header.Expires };

    public bool MoveNext() => MoveNext(null);

    /// <summary>Moves to the next result and, with a <paramref name="sink"/>, hands it the result's JSON before returning.</summary>
    public bool MoveNext(IQueryResultSink? sink)
    {
        if (_done || (_spec.Take is { } take && _returned >= take))
        {
            _done = true;
            return false;
        }

        if (_plan.SortInMemory != null)
        {
            return MoveNextSorted(sink);
        }

        while (NextCandidate(out var fromIndex))
        {
            if (!Accept(fromIndex, copyJson: sink == null, out var record))
            {
                continue;
            }

            if (_skipped < _spec.Skip)
            {
                _skipped++;
                continue;
            }

            _returned++;
            Deliver(sink, record);
            return true;
        }

        _done = true;
        return false;
    }

    /// <summary>Hands the current result's JSON to <paramref name="sink"/>: the page's bytes when stored plain, else the decode buffer.</summary>
    private void Deliver(IQueryResultSink? sink, ReadOnlySpan<byte> record)
    {
        if (sink == null)
        {
            return;
        }

        if (!_jsonReady && _header.Compressed)
        {
            LoadJson(record);
        }

        if (_jsonReady)
        {
            sink.Take(this, Json);
            return;
        }

        byte[]? unused = null; // a plain body is returned in place; nothing is rented
        sink.Take(this, DocumentRecord.Json(record, _header, ref unused, Id, _storePath));
    }

    /// <summary>AllowScan with an order no index gives: gather every match with its sort keys, sort, then page.</summary>
    private bool MoveNextSorted(IQueryResultSink? sink)
    {
        if (_sorted == null)
        {
            _sorted = [];
            while (NextCandidate(out var fromIndex))
            {
                if (Accept(fromIndex, copyJson: false, out _))
                {
                    _sorted.Add((IdBytes.ToArray(), SortKeys()));
                }
            }

            var orders = _plan.SortInMemory!;
            _sorted.Sort((a, b) =>
            {
                for (var i = 0; i < orders.Count; i++)
                {
                    var order = a.Keys[i].AsSpan().SequenceCompareTo(b.Keys[i]);
                    if (order != 0)
                    {
                        return orders[i].Descending ? -order : order;
                    }
                }

                return a.Id.AsSpan().SequenceCompareTo(b.Id);
            });
            _sortedPosition = Math.Min(_spec.Skip, _sorted.Count);
        }

        if (_sortedPosition >= _sorted.Count)
        {
            _done = true;
            return false;
        }

        SetCurrent(_sorted[_sortedPosition++].Id);
        _docs!.TryGet(IdBytes, out var record);
        _header = DocumentRecord.ReadHeader(record, Id, _storePath);
        if (_readsJson && sink == null)
        {
            LoadJson(record);
        }

        _returned++;
        Deliver(sink, record);
        return true;
    }

    private byte[][] SortKeys()
    {
        var orders = _plan.SortInMemory!;
        var keys = new byte[orders.Count][];
        if (_extractor != null)
        {
            _extractor.Extract(Json);
        }

        for (var i = 0; i < orders.Count; i++)
        {
            keys[i] = orders[i].IsId ? IdBytes.ToArray() : _extractor!.ValuesOf(_sortSlots[i])[0];
        }

        return keys;
    }

    /// <summary>Moves to the next id the plan's source yields; fromIndex is the index entry's key when the source is an index.</summary>
    private bool NextCandidate(out bool fromIndex)
    {
        fromIndex = _plan.Kind == PlanKind.IndexRange;
        if (_plan.Kind == PlanKind.IdLookup)
        {
            if (_started)
            {
                return false;
            }

            _started = true;
            SetCurrent(_plan.LookupId!);
            return true;
        }

        var iterator = _iterator!;
        bool positioned;
        if (!_started)
        {
            _started = true;
            positioned = _plan.Descending ? SeekLastBelow(iterator, _plan.Upper) : (_plan.Lower == null ? iterator.SeekFirst() : iterator.Seek(_plan.Lower));
        }
        else
        {
            positioned = _plan.Descending ? iterator.MovePrevious() : iterator.MoveNext();
        }

        if (!positioned)
        {
            return false;
        }

        var key = iterator.Key;
        if (_plan.Descending ? _plan.Lower != null && key.SequenceCompareTo(_plan.Lower) < 0 : _plan.Upper != null && key.SequenceCompareTo(_plan.Upper) >= 0)
        {
            return false;
        }

        if (!fromIndex)
        {
            SetCurrent(key);
            return true;
        }

        var valuesLength = IndexKey.ValuesLength(key, _components);
        if (valuesLength < 0 || key.Length - valuesLength is < 1 or > DocumentLimits.MaxIdBytes)
        {
            throw new CorruptionException(_storePath, 0, $"an entry of index tree '{_plan.Index!.TreeName}' breaks K1..K4 (Indexing/IndexKey.cs): {Convert.ToHexString(key)}.");
        }

        SetCurrent(key[valuesLength..]);
        return true;
    }

    private static bool SeekLastBelow(TreeIterator iterator, byte[]? upper)
    {
        if (upper == null)
        {
            return iterator.SeekLast();
        }

        return iterator.Seek(upper) ? iterator.MovePrevious() : iterator.SeekLast();
    }

    /// <summary>
    /// Checks the current candidate against the plan's conditions and reads its record header;
    /// <paramref name="record"/> is the record on its page (valid until the cursor moves). The JSON is
    /// copied only when a condition or the in-memory sort reads it, or <paramref name="copyJson"/> asks.
    /// </summary>
    private bool Accept(bool fromIndex, bool copyJson, out ReadOnlySpan<byte> record)
    {
        _jsonReady = false;
        record = default;
        if (fromIndex && _plan.KeyConditions.Count > 0 && !KeyMatches(_iterator!.Key))
        {
            return false;
        }

        foreach (var condition in _plan.IdConditions)
        {
            if (!condition.Matches(IdBytes))
            {
                return false;
            }
        }

        if (_docs == null || !_docs.TryGet(IdBytes, out record))
        {
            if (_plan.Kind == PlanKind.IdLookup)
            {
                return false;
            }

            throw new CorruptionException(_storePath, 0, $"{(fromIndex ? $"index '{_plan.Index!.Name}'" : $"collection '{_spec.Collection}'")} lists document '{Id}', which does not exist (L1/L2 in Storage/DocumentTrees.cs).");
        }

        _header = DocumentRecord.ReadHeader(record, Id, _storePath);
        if (!DocumentRecord.Collection(record, _header).SequenceEqual(_spec.CollectionBytes))
        {
            if (_plan.Kind == PlanKind.IdLookup)
            {
                return false;
            }

            throw new CorruptionException(_storePath, 0, $"collection '{_spec.Collection}' lists document '{Id}', which belongs to '{DocumentRecord.CollectionName(record, _header)}' (L1 in Storage/DocumentTrees.cs).");
        }

        if (_header.IsExpired(_nowTicks))
        {
            return false; // XE1: expired, absent for readers until the sweeper deletes it
        }

        if ((_readsJson && copyJson) || _plan.DocumentConditions.Count > 0 || _plan.SortInMemory != null)
        {
            LoadJson(record);
        }

        if (_plan.DocumentConditions.Count > 0)
        {
            _extractor!.Extract(Json);
            for (var i = 0; i < _plan.DocumentConditions.Count; i++)
            {
                var condition = _plan.DocumentConditions[i];
                if (!_extractor.ValuesOf(_documentSlots[i]).Any(v => condition.Matches(v)))
                {
                    return false;
                }
            }
        }

        return _seen == null || _seen.Add(IdBytes.ToArray());
    }

    private bool KeyMatches(ReadOnlySpan<byte> key)
    {
        Span<int> starts = stackalloc int[_components + 1];
        var offset = 0;
        for (var c = 0; c < _components; c++)
        {
            starts[c] = offset;
            offset += IndexKey.ValueLength(key[offset..]);
        }

        starts[_components] = offset;
        foreach (var (component, condition) in _plan.KeyConditions)
        {
            if (!condition.Matches(key[starts[component]..starts[component + 1]]))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Copies (or decodes) the current record's JSON into the cursor's buffer.</summary>
    private void LoadJson(ReadOnlySpan<byte> record)
    {
        if (_json.Length < _header.JsonLength)
        {
            _json = new byte[Math.Max(_header.JsonLength, _json.Length * 2)];
        }

        DocumentRecord.CopyJson(record, _header, _json, Id, _storePath);
        _jsonReady = true;
    }

    private void SetCurrent(ReadOnlySpan<byte> id)
    {
        if (_currentId.Length < id.Length)
        {
            _currentId = new byte[Math.Max(id.Length, 64)];
        }

        id.CopyTo(_currentId);
        _currentIdLength = id.Length;
        _currentIdText = null;
        _jsonReady = false;
    }

    public void Dispose() => _json = [];
}
