using System.Globalization;
using System.Text;
using Voron.Documents.Indexing;
using Voron.Documents.Storage;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Documents;

/// <summary>A cursor of a <see cref="DocsTable"/>: runs the plan xBestIndex chose (SD4) over the transaction's view (SD3).</summary>
internal sealed class DocsCursor(DocsTable table) : VirtualTableCursor
{
    private IEnumerator<DocumentState>? _rows;
    private DocumentView? _view;
    private DocumentState? _row;
    private long _limit;

    public override bool Eof => _row == null;

    public override void Filter(int indexNumber, string? indexString, ReadOnlySpan<SqliteValue> arguments)
    {
        Reset();
        var plan = table.Plan(indexNumber);
        var values = new SqlValue[arguments.Length];
        List<SqlValue>? list = null;
        for (var i = 0; i < arguments.Length; i++)
        {
            if (plan.Arguments[i].Role == ArgumentRole.IdIn)
            {
                list = arguments[i].InValues(SqlValue.From);
            }
            else
            {
                values[i] = SqlValue.From(arguments[i]);
            }
        }

        var collection = table.Spec.Collection;
        long offset = 0;
        _limit = long.MaxValue;
        for (var i = 0; i < values.Length; i++)
        {
            switch (plan.Arguments[i].Role)
            {
                case ArgumentRole.Collection:
                    collection = values[i].Kind == SqlKind.Text ? values[i].Text : null;
                    try
                    {
                        DocumentNames.CollectionBytes(collection ?? "");
                    }
                    catch (ArgumentException e)
                    {
                        throw new VirtualTableException(Interop.SqliteConstants.Error, $"voron_collection({values[i]}): not a collection name: {e.Message}", e);
                    }

                    break;
                case ArgumentRole.Limit when values[i].Kind == SqlKind.Integer:
                    _limit = values[i].Integer < 0 ? long.MaxValue : values[i].Integer;
                    break;
                case ArgumentRole.Offset when values[i].Kind == SqlKind.Integer:
                    offset = Math.Max(0, values[i].Integer);
                    break;
            }
        }

        if (collection == null)
        {
            _rows = Enumerable.Empty<DocumentState>().GetEnumerator();
            Next();
            return;
        }

        var view = _view = table.OpenView();
        var rows = Rows(view, collection, plan, values, list);
        _rows = (offset == 0 ? rows : rows.Skip(offset > int.MaxValue ? int.MaxValue : (int)offset)).GetEnumerator();
        Next();
    }

    private IEnumerable<DocumentState> Rows(DocumentView view, string collection, DocsPlan plan, SqlValue[] values, List<SqlValue>? list)
    {
        switch (plan.Kind)
        {
            case PlanKind.IdEquals:
                var position = 0;
                while (plan.Arguments[position].Role != ArgumentRole.IdEquals)
                {
                    position++;
                }

                return IdList([DocsTable.IdOf(values[position])], view, collection, false, plan.ReadsJson);
            case PlanKind.IdIn:
                var ids = list!.Select(DocsTable.IdOf).Where(id => id != null).Distinct(StringComparer.Ordinal).Order(Utf8Order.Instance).ToList();
                return IdList(ids, view, collection, plan.OrderConsumed && plan.Descending, plan.ReadsJson);
            case PlanKind.IdRange:
                var (from, to, empty) = IdBounds(plan, values);
                return empty ? [] : IdScan(view, collection, from, to, plan.OrderConsumed && plan.Descending, plan.ReadsJson);
            case PlanKind.Index:
                return IndexRows(view, collection, plan, values);
            default:
                return IdScan(view, collection, null, null, plan.OrderConsumed && plan.Descending, plan.ReadsJson);
        }
    }

    private static IEnumerable<DocumentState> IdList(List<string?> ids, DocumentView view, string collection, bool descending, bool readJson)
    {
        for (var i = 0; i < ids.Count; i++)
        {
            var id = ids[descending ? ids.Count - 1 - i : i];
            if (id == null || Encoding.UTF8.GetByteCount(id) is 0 or > Voron.Documents.DocumentLimits.MaxIdBytes)
            {
                continue;
            }

            if (view.Find(id, Encoding.UTF8.GetBytes(id), readJson) is { } row && row.Collection == collection)
            {
                yield return row;
            }
        }
    }

    /// <summary>The ids of a range, as UTF-8 bounds [from, to); empty when a bound can match nothing (NULL, a blob lower bound).</summary>
    private static (byte[]? From, byte[]? To, bool Empty) IdBounds(DocsPlan plan, SqlValue[] values)
    {
        byte[]? from = null, to = null;
        for (var i = 0; i < values.Length; i++)
        {
            var argument = plan.Arguments[i];
            if (argument.Role is not (ArgumentRole.IdLower or ArgumentRole.IdUpper))
            {
                continue;
            }

            var value = values[i];
            if (value.Kind == SqlKind.Blob)
            {
                if (argument.Role == ArgumentRole.IdLower)
                {
                    return (null, null, true); // text < blob: no id is above a blob
                }

                continue; // every id is below a blob
            }

            var text = DocsTable.IdOf(value);
            if (text == null)
            {
                return (null, null, true);
            }

            var bytes = Encoding.UTF8.GetBytes(text);
            if (argument.Role == ArgumentRole.IdLower)
            {
                from = argument.Operator == IndexOperator.GreaterThan ? [.. bytes, 0] : bytes;
            }
            else
            {
                to = argument.Operator == IndexOperator.LessThanOrEqual ? [.. bytes, 0] : bytes;
            }
        }

        return (from, to, false);
    }

    /// <summary>The collection's documents with ids in [from, to), in id order, through the view (SD3).</summary>
    private static IEnumerable<DocumentState> IdScan(DocumentView view, string collection, byte[]? from, byte[]? to, bool descending, bool readJson)
    {
        if (!view.HasOverlay(collection))
        {
            foreach (var id in view.StoredIds(collection, from, to, descending))
            {
                if (view.FindStored(DocumentView.IdText(id), id, readJson) is { } row && row.Collection == collection)
                {
                    yield return row;
                }
            }

            yield break;
        }

        var ids = new SortedSet<string>(view.StoredIds(collection, from, to, false).Select(DocumentView.IdText), Utf8Order.Instance); // the store's order
        foreach (var id in view.OverlayIds(collection))
        {
            var bytes = Encoding.UTF8.GetBytes(id);
            if ((from == null || bytes.AsSpan().SequenceCompareTo(from) >= 0) && (to == null || bytes.AsSpan().SequenceCompareTo(to) < 0))
            {
                ids.Add(id);
            }
        }

        foreach (var id in descending ? ids.Reverse() : ids)
        {
            if (view.Find(id, Encoding.UTF8.GetBytes(id), readJson) is { } row && row.Collection == collection)
            {
                yield return row;
            }
        }
    }

    /// <summary>
    /// SD4: an index plan — the index range when its order and matches are SQLite's, else the
    /// collection read and sorted here. Documents changed outside the snapshot (in flight, or the
    /// transaction's own) are left out of the snapshot's range and merged in as the transaction
    /// sees them: a superset SQLite re-checks, so concurrent writers do not turn an index query
    /// into a scan of the collection.
    /// </summary>
    private IEnumerable<DocumentState> IndexRows(DocumentView view, string collection, DocsPlan plan, SqlValue[] values)
    {
        var index = view.Stored.Catalog.IndexesOf(collection).FirstOrDefault(i => i.Name == plan.IndexName && i.Ready);
        var overlay = view.HasOverlay(collection);
        var pushedLimit = plan.Arguments.Any(a => a.Role is ArgumentRole.Limit or ArgumentRole.Offset); // a superset must not be cut short
        var range = index == null || (overlay && pushedLimit) ? null : KeyRange(view, index, plan, values);
        if (range == null)
        {
            var all = IdScan(view, collection, null, null, false, readJson: true);
            return plan.OrderConsumed ? SortedAsSqlite(all, plan) : all;
        }

        if (!overlay)
        {
            return range.Value.Empty ? [] : IndexScan(view, collection, index!, range.Value.Lower, range.Value.Upper, plan.OrderConsumed && plan.Descending, plan.ReadsJson);
        }

        var changed = view.OverlayIds(collection);
        var stored = range.Value.Empty
            ? []
            : IndexScan(view, collection, index!, range.Value.Lower, range.Value.Upper, plan.OrderConsumed && plan.Descending, plan.ReadsJson || plan.OrderConsumed)
                .Where(row => !changed.Contains(row.Id));
        var current = changed.Select(id => view.Find(id, Encoding.UTF8.GetBytes(id), readJson: true)).OfType<DocumentState>().Where(row => row.Collection == collection);
        return plan.OrderConsumed ? Merge(stored, SortedAsSqlite(current, plan), plan) : stored.Concat(current);
    }

    /// <summary>Rows in SQLite's order of the plan's ORDER BY column (booleans as 0 and 1 among the numbers).</summary>
    private IEnumerable<DocumentState> SortedAsSqlite(IEnumerable<DocumentState> rows, DocsPlan plan)
    {
        var sorted = rows.Select(row => (Row: row, Key: OrderKey(row, plan))).OrderBy(x => x.Key, Comparer<SqlValue>.Create(SqlValue.Compare)).Select(x => x.Row);
        return plan.Descending ? sorted.Reverse() : sorted;
    }

    /// <summary>Two sequences each in the plan's order (the index range, whose order is SQLite's when <see cref="KeyRange"/> allowed it, and the changed rows) as one.</summary>
    private IEnumerable<DocumentState> Merge(IEnumerable<DocumentState> first, IEnumerable<DocumentState> second, DocsPlan plan)
    {
        using var a = first.GetEnumerator();
        using var b = second.GetEnumerator();
        bool moreA = a.MoveNext(), moreB = b.MoveNext();
        while (moreA && moreB)
        {
            var order = SqlValue.Compare(OrderKey(a.Current, plan), OrderKey(b.Current, plan));
            if ((plan.Descending ? -order : order) <= 0)
            {
                yield return a.Current;
                moreA = a.MoveNext();
            }
            else
            {
                yield return b.Current;
                moreB = b.MoveNext();
            }
        }

        for (; moreA; moreA = a.MoveNext())
        {
            yield return a.Current;
        }

        for (; moreB; moreB = b.MoveNext())
        {
            yield return b.Current;
        }
    }

    private SqlValue OrderKey(DocumentState row, DocsPlan plan) => JsonValues.Extract(row.Json, table.Spec.PathOf(plan.OrderColumn)!.Path);

    private readonly record struct KeyBounds(byte[] Lower, byte[]? Upper, bool Empty);

    /// <summary>The index keys a plan reads, or null when the index cannot answer exactly as SQLite would (SD4).</summary>
    private KeyBounds? KeyRange(DocumentView view, IndexRuntime index, DocsPlan plan, SqlValue[] values)
    {
        var columns = index.Definition.JsonPaths.Select(table.Spec.ColumnOf).ToArray();
        var equalities = new byte[plan.Equalities][];
        var widened = -1; // the first equality whose constant reads a range of keys
        byte[]? lower = null, upper = null;
        IndexOperator lowerOp = default, upperOp = default;
        for (var i = 0; i < values.Length; i++)
        {
            var argument = plan.Arguments[i];
            if (argument.Role is not (ArgumentRole.KeyEquals or ArgumentRole.KeyLower or ArgumentRole.KeyUpper))
            {
                continue;
            }

            if (values[i].IsNull)
            {
                return new KeyBounds([], null, true); // a comparison with NULL matches nothing
            }

            var encoded = Encode(values[i], table.Spec.PathOf(columns[argument.Component])!.Affinity);
            if (encoded == null)
            {
                return null;
            }

            // json_extract reads an integer between 2^63 and 2^64 as REAL, its nearest double; the
            // index keeps it exact, as that double and a remainder. A REAL constant in that range
            // reads every key of its double, whatever the remainder (a superset, SD4).
            var wide = values[i].Kind == SqlKind.Real && values[i].Real is >= TwoTo63 and <= TwoTo64;
            switch (argument.Role)
            {
                case ArgumentRole.KeyEquals:
                    equalities[argument.Component] = encoded;
                    if (wide && (widened < 0 || argument.Component < widened))
                    {
                        widened = argument.Component;
                    }

                    break;
                case ArgumentRole.KeyLower:
                    lower = wide ? encoded[..WideLength] : encoded;
                    lowerOp = wide ? IndexOperator.GreaterThanOrEqual : argument.Operator;
                    break;
                default:
                    upper = wide ? encoded[..WideLength] : encoded;
                    upperOp = wide ? IndexOperator.LessThanOrEqual : argument.Operator;
                    break;
            }
        }

        // Booleans: JSON puts them before numbers, SQLite reads them as 0 and 1 among numbers.
        if (!view.Stored.HasEntries(index))
        {
            return new KeyBounds([], null, true);
        }

        var prefix = new List<byte>();
        for (var c = 0; c <= plan.Equalities && c < columns.Length; c++)
        {
            if (HasBoolean(view.Stored, index, [.. prefix]))
            {
                return null;
            }

            if (c < plan.Equalities)
            {
                prefix.AddRange(equalities[c]);
            }
        }

        if (widened >= 0)
        {
            // A range on that component: the later components' bounds and order no longer apply.
            if (plan.OrderConsumed)
            {
                return null;
            }

            byte[] before = [.. equalities.Take(widened).SelectMany(e => e), .. equalities[widened].AsSpan(0, WideLength)];
            return new KeyBounds(before, IndexKey.Successor(before), false);
        }

        byte[] p = [.. prefix];
        var hasRange = lower != null || upper != null;
        byte[] start = lower != null
            ? lowerOp == IndexOperator.GreaterThan ? IndexKey.Successor([.. p, .. lower]) ?? [.. p, 0xFF] : [.. p, .. lower]
            : hasRange ? [.. p, IndexKey.False] : p;
        byte[]? end = upper != null
            ? upperOp == IndexOperator.LessThanOrEqual ? IndexKey.Successor([.. p, .. upper]) : [.. p, .. upper]
            : p.Length == 0 ? null : IndexKey.Successor(p);
        return new KeyBounds(start, end, false);
    }

    private const double TwoTo63 = 9223372036854775808.0;
    private const double TwoTo64 = 18446744073709551616.0;

    /// <summary>A number key's tag and double: the bytes every key of that double starts with (IndexKey's FORMAT).</summary>
    private const int WideLength = 9;

    private static bool HasBoolean(ReadPort stored, IndexRuntime index, byte[] prefix) =>
        stored.FirstEntryFrom(index, [.. prefix, IndexKey.False]) is { } key && key.AsSpan().StartsWith(prefix) && key.Length > prefix.Length &&
        key[prefix.Length] is IndexKey.False or IndexKey.True;

    /// <summary>A constant in the index's encoding, or null when SQLite's comparison of it is not the index's (SD4): text against a numeric column when it looks numeric, numbers against TEXT, blobs.</summary>
    private static byte[]? Encode(SqlValue value, ColumnAffinity affinity)
    {
        var key = new KeyBuilder();
        switch (value.Kind)
        {
            case SqlKind.Integer when affinity != ColumnAffinity.Text:
                IndexKey.EncodeInteger(value.Integer, key);
                return key.ToArray();
            case SqlKind.Real when affinity != ColumnAffinity.Text:
                IndexKey.EncodeDouble(value.Real, key);
                return key.ToArray();
            case SqlKind.Text when affinity is ColumnAffinity.Text or ColumnAffinity.None || !LooksNumeric(value.Text):
                IndexKey.EncodeString(value.Bytes, key);
                return key.ToArray();
            default:
                return null;
        }
    }

    private static bool LooksNumeric(string text) => double.TryParse(text.Trim(), NumberStyles.Float, CultureInfo.InvariantCulture, out _);

    private static IEnumerable<DocumentState> IndexScan(DocumentView view, string collection, IndexRuntime index, byte[] lower, byte[]? upper, bool descending, bool readJson)
    {
        foreach (var key in view.Stored.Entries(index, lower, upper, descending))
        {
            var id = key[IndexKey.ValuesLength(key, index.ComponentCount)..];
            if (view.FindStored(DocumentView.IdText(id), id, readJson) is { } row && row.Collection == collection)
            {
                yield return row;
            }
        }
    }

    public override void Next()
    {
        if (_rows != null && _limit > 0 && _rows.MoveNext())
        {
            _row = _rows.Current;
            _limit--;
        }
        else
        {
            _row = null;
        }
    }

    public override void Column(ResultContext result, int column)
    {
        var row = _row!;
        var spec = table.Spec;
        if (column == TableSpec.IdColumn)
        {
            result.SetText(row.Id);
            return;
        }

        if (result.NoChange)
        {
            return; // SD5: an UPDATE that does not set this column gets "unchanged"
        }

        if (spec.Eponymous)
        {
            switch (column)
            {
                case TableSpec.BodyColumn:
                    result.SetText(row.Json);
                    return;
                case 2:
                    SetVersion(result, row);
                    return;
                case 3:
                    SetTicks(result, row);
                    return;
                default:
                    result.SetText(row.Collection);
                    return;
            }
        }

        if (column == TableSpec.BodyColumn)
        {
            result.SetText(row.Json);
        }
        else if (column == spec.VersionColumn)
        {
            SetVersion(result, row);
        }
        else if (column == spec.LastModifiedColumn)
        {
            SetTicks(result, row);
        }
        else
        {
            JsonValues.Extract(row.Json, spec.PathOf(column)!.Path).SetResult(result);
        }
    }

    private static void SetVersion(ResultContext result, DocumentState row)
    {
        if (row.Stamp().Version is { } version)
        {
            result.SetInt64(version);
        }
        else
        {
            result.SetNull();
        }
    }

    private static void SetTicks(ResultContext result, DocumentState row)
    {
        if (Timestamp(row.Stamp().Ticks) is { } text)
        {
            result.SetText(text);
        }
        else
        {
            result.SetNull();
        }
    }

    /// <summary>last_modified as text: ISO 8601 UTC with 7 fraction digits, so text order is time order.</summary>
    internal static string? Timestamp(long? ticks) =>
        ticks is { } t ? new DateTime(t, DateTimeKind.Utc).ToString("yyyy-MM-ddTHH:mm:ss.fffffffZ", CultureInfo.InvariantCulture) : null;

    private void Reset()
    {
        _rows?.Dispose();
        _rows = null;
        _view?.Dispose();
        _view = null;
        _row = null;
    }

    public override void Close() => Reset();
}
