using System.Text;
using Voron.Documents;
using Voron.Documents.Indexing;
using Voron.Documents.Serialization;
using Voron.Documents.Storage;
using Voron.SqliteVfs.Databases;
using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Documents;

// Design notes — SQL over documents (the voron_docs module). Rules SD1–SD8 here; the rules of
// document commits and reads (V13–V17) are in Databases/DatabaseState.cs with the rest of V1–V18.
//
// SD1. A voron_docs table is a view of one collection: id (TEXT PRIMARY KEY, WITHOUT ROWID), body
//     (the JSON), one column per declared JSON path, hidden version and last_modified
//     (TableSpec.cs). Nothing is stored in SQLite but the table's definition; the documents are the
//     document store's. voron_collection('X') is the same, read-only, for any collection.
// SD2. A path column reads what json_extract(body, path) reads (JsonValues.Extract; a property
//     name repeated in one object: its first occurrence, as the store's indexes read it): SQL over
//     voron_docs and SQL over a table of JSON text answer alike. The declared type is SQLite's
//     column affinity for comparisons and for values written (SD5).
// SD3. A statement reads its database's snapshot (V2): the same store read transaction as its
//     tables, plus, for a writer, the database's commits in flight after it (V4), plus its own
//     transaction's changes (DocumentView). A transaction that only reads reads durable documents
//     and never waits (V15).
// SD4. Plans (BestIndex): id = and id IN (one xFilter for the list), id ranges, equality on an
//     index's leading paths and a range on the next (indexes whose paths are declared columns),
//     else a scan of the collection. Only id constraints are omitted (SQLite re-checks every path
//     constraint: the index returns a superset of the rows SQLite keeps). ORDER BY is consumed for
//     the id order and for an index's next path, whose JSON order agrees with SQLite's order but
//     for booleans (JSON false < true < numbers, SQLite 0 and 1 among numbers): a filter that
//     finds booleans there reads the collection and sorts in SQLite's order instead, as it does
//     when a constant cannot be compared in the index's encoding. Documents changed outside the
//     snapshot (the transaction's own changes, commits in flight) are left out of the index range
//     and merged in as the transaction sees them (a superset, in the order's sequence); with LIMIT
//     or OFFSET pushed down the collection is read instead. LIMIT and OFFSET are pushed down only
//     when every other constraint is omitted and the order, if any, is consumed. Ids are sorted
//     and merged in UTF-8 byte order (Utf8Order), SQLite's BINARY order and the store's key order.
//     Where the index reads a value otherwise than json_extract, the range still covers what SQLite
//     keeps: an integer between 2^63 and 2^64 is exact in the index but REAL to json_extract, so a
//     REAL constant in that range reads every key of its double (an equality there ends the key
//     prefix: later components are left to SQLite's re-check, and their order is not consumed).
// SD5. INSERT: a NULL id takes a generated id "<Collection>/<n>" (I5); a NULL body is {}; a body
//     must be one JSON object (SQLITE_CONSTRAINT otherwise); each non-NULL path column sets its
//     path (affinity first). UPDATE: SQLite hands xUpdate every column's new value, and marks
//     each column the statement does not SET as unchanged (sqlite3_value_nochange: DocsCursor.Column
//     answers SQLite's nochange fetch with nothing, and SQLite asks so for every column an UPDATE
//     of a virtual table does not SET, in one pass, two passes and UPDATE ... FROM alike). The new
//     document is the SET body (NULL: {}), else the stored one; then each SET path column, in
//     column order, is written into it as json_set(body, path, value) writes it: after the column's
//     affinity, NULL as JSON null, the value even when the path holds it already (SET b = 0 over
//     false writes 0), at the first occurrence of a repeated name. Columns not SET are not written.
//     A path is written by its value's bytes alone (JsonValues.SetPaths): the rest of the body keeps
//     its text. A path through a value that is not an object is SQLITE_CONSTRAINT (json_set would
//     write nothing). The id, version and last_modified cannot be written. A duplicate id is
//     SQLITE_CONSTRAINT unless the statement says OR REPLACE (replace) or OR IGNORE (skip: xUpdate
//     answers SQLITE_CONSTRAINT, which SQLite then ignores without counting a change; where the
//     table cannot declare constraint support, Apple arm64, it skips with SQLITE_OK); a unique
//     index is checked against what the transaction sees, and OR REPLACE deletes the documents that
//     hold the values, as SQLite's REPLACE deletes rows.
// SD6. Every change carries the version the transaction read (0: no document), so a change
//     commits only over that version (I3): WHERE version = ? is an If-Match, and a session that
//     wrote the document since fails the COMMIT. A document whose newest state is an in-flight
//     commit of the same database expects what that commit wrote; one this transaction deleted and
//     inserts again expects the version the delete read.
// SD7. Changes live in the connection's write transaction on the database (PendingDocuments), with
//     SQLite's savepoints: a failed statement, ROLLBACK TO and ROLLBACK undo them. The tables of a
//     database share the changes and one undo log; each table keeps the savepoints SQLite tells it
//     of as points in that log, a savepoint it was not told of being where it joined the
//     transaction (TableSavepoints.cs has SQLite's order of calls and why this is exact).
// SD8. xSync, while the write lock is held, checks every change's expected version against the
//     newest committed state: a conflict fails the COMMIT there (SQLite ignores xCommit's errors),
//     before anything is submitted. The merged operation checks again (V14).

/// <summary>A voron_docs table (or voron_collection) on one connection.</summary>
internal sealed class DocsTable(DocumentStore store, DatabaseFile file, TableSpec spec, string tableName, nint db) : VirtualTable
{
    private readonly List<DocsPlan> _plans = [];
    private readonly Dictionary<string, int> _planNumbers = new(StringComparer.Ordinal);

    public DocumentStore Store { get; } = store;

    public TableSpec Spec { get; } = spec;

    public string TableName { get; } = tableName;

    public override string Declaration => Spec.Declaration();

    public override bool ConstraintSupport => !Spec.Eponymous;

    internal DocsPlan Plan(int number) => _plans[number];

    public override VirtualTableCursor OpenCursor() => new DocsCursor(this);

    internal DocumentView OpenView() => file.OpenDocumentView(Store);

    public override void BestIndex(IndexInfo info)
    {
        var arguments = new List<PlanArgument>();
        var omitted = new HashSet<int>();
        int Use(int constraint, PlanArgument argument, bool omit)
        {
            arguments.Add(argument);
            info.Use(constraint, arguments.Count, omit);
            if (omit)
            {
                omitted.Add(constraint);
            }

            return arguments.Count;
        }

        var constraints = Enumerable.Range(0, info.ConstraintCount).Select(i => (Index: i, C: info.Constraint(i))).Where(x => x.C.Usable).ToList();
        if (Spec.Eponymous)
        {
            var collection = constraints.FirstOrDefault(x => x.C.Column == Spec.CollectionColumn && x.C.Operator == IndexOperator.Equal);
            if (collection.C.Column != Spec.CollectionColumn || collection.C.Operator != IndexOperator.Equal)
            {
                // SQLITE_CONSTRAINT means "not this plan, try another": right when a join names the
                // collection from a table this plan would read later. Without any equality on the
                // collection no plan can work, and only an error carries the message to the user.
                var named = Enumerable.Range(0, info.ConstraintCount).Select(info.Constraint).Any(c => c.Column == Spec.CollectionColumn && c.Operator == IndexOperator.Equal);
                throw new VirtualTableException(named ? SqliteConstants.Constraint : SqliteConstants.Error,
                    "voron_collection needs a collection: SELECT * FROM voron_collection('Order'), or WHERE collection = ?.");
            }

            Use(collection.Index, new PlanArgument(ArgumentRole.Collection, IndexOperator.Equal), omit: true);
        }

        bool Binary(int i) => string.Equals(info.Collation(i), "BINARY", StringComparison.OrdinalIgnoreCase);
        (int Index, IndexConstraint C)? Find(int column, Func<IndexOperator, bool> op) =>
            constraints.Where(x => x.C.Column == column && op(x.C.Operator) && Binary(x.Index)).Select(x => ((int, IndexConstraint)?)x).FirstOrDefault();
        static bool IsLower(IndexOperator op) => op is IndexOperator.GreaterThan or IndexOperator.GreaterThanOrEqual;
        static bool IsUpper(IndexOperator op) => op is IndexOperator.LessThan or IndexOperator.LessThanOrEqual;

        var orderColumn = info.OrderByCount == 1 ? info.OrderBy(0).Column : -1;
        var descending = info.OrderByCount == 1 && info.OrderBy(0).Descending;
        PlanKind kind;
        string? indexName = null;
        var equalities = 0;
        var orderConsumed = false;
        string description;
        double cost;
        long rows;

        var idEquals = Find(TableSpec.IdColumn, op => op == IndexOperator.Equal);
        var bestIndex = Spec.Eponymous ? null : ChooseIndex(constraints, Binary, orderColumn);
        if (idEquals is { } eq)
        {
            var isList = info.TryUseInList(eq.Index);
            kind = isList ? PlanKind.IdIn : PlanKind.IdEquals;
            Use(eq.Index, new PlanArgument(isList ? ArgumentRole.IdIn : ArgumentRole.IdEquals, IndexOperator.Equal), omit: true);
            orderConsumed = !isList || orderColumn == TableSpec.IdColumn;
            info.Unique = !isList;
            description = isList ? "id IN list" + (orderConsumed && info.OrderByCount > 0 ? descending ? " order desc" : " order" : "") : "id lookup";
            cost = isList ? 10 : 1;
            rows = isList ? 10 : 1;
        }
        else if (bestIndex is { Equalities: > 0 } || (bestIndex != null && Find(TableSpec.IdColumn, o => IsLower(o) || IsUpper(o)) == null && (bestIndex.Value.Range || bestIndex.Value.OrderServed)))
        {
            var chosen = bestIndex!.Value;
            kind = PlanKind.Index;
            indexName = chosen.Index.Name;
            equalities = chosen.Equalities;
            var parts = new List<string>();
            for (var c = 0; c < chosen.Equalities; c++)
            {
                var column = chosen.Columns[c];
                var constraint = Find(column, op => op == IndexOperator.Equal)!.Value;
                Use(constraint.Index, new PlanArgument(ArgumentRole.KeyEquals, IndexOperator.Equal, c), omit: false);
                parts.Add(Spec.PathOf(column)!.Name + "=?");
            }

            if (chosen.Range)
            {
                var column = chosen.Columns[chosen.Equalities];
                if (Find(column, IsLower) is { } lower)
                {
                    Use(lower.Index, new PlanArgument(ArgumentRole.KeyLower, lower.C.Operator, chosen.Equalities), omit: false);
                    parts.Add(Spec.PathOf(column)!.Name + (lower.C.Operator == IndexOperator.GreaterThan ? ">?" : ">=?"));
                }

                if (Find(column, IsUpper) is { } upper)
                {
                    Use(upper.Index, new PlanArgument(ArgumentRole.KeyUpper, upper.C.Operator, chosen.Equalities), omit: false);
                    parts.Add(Spec.PathOf(column)!.Name + (upper.C.Operator == IndexOperator.LessThan ? "<?" : "<=?"));
                }
            }

            orderConsumed = chosen.OrderServed;
            description = $"index {chosen.Index.Name} ({(parts.Count == 0 ? "all" : string.Join(" AND ", parts))})" + (orderConsumed ? descending ? " order desc" : " order" : "");
            cost = chosen.Equalities > 0 ? 20.0 / chosen.Equalities + (chosen.Range ? 0 : 5) : chosen.Range ? 2_000 : 50_000;
            rows = chosen.Equalities > 0 ? 10 : chosen.Range ? 1_000 : 100_000;
        }
        else if (Find(TableSpec.IdColumn, o => IsLower(o) || IsUpper(o)) != null)
        {
            kind = PlanKind.IdRange;
            var parts = new List<string>();
            if (Find(TableSpec.IdColumn, IsLower) is { } lower)
            {
                Use(lower.Index, new PlanArgument(ArgumentRole.IdLower, lower.C.Operator), omit: true);
                parts.Add(lower.C.Operator == IndexOperator.GreaterThan ? "id>?" : "id>=?");
            }

            if (Find(TableSpec.IdColumn, IsUpper) is { } upper)
            {
                Use(upper.Index, new PlanArgument(ArgumentRole.IdUpper, upper.C.Operator), omit: true);
                parts.Add(upper.C.Operator == IndexOperator.LessThan ? "id<?" : "id<=?");
            }

            orderConsumed = orderColumn == TableSpec.IdColumn;
            description = "id range (" + string.Join(" AND ", parts) + ")" + (orderConsumed ? descending ? " order desc" : " order" : "");
            cost = 1_000;
            rows = 1_000;
        }
        else
        {
            kind = PlanKind.Scan;
            orderConsumed = orderColumn == TableSpec.IdColumn;
            description = "scan" + (orderConsumed ? descending ? " order by id desc" : " order by id" : "");
            cost = 100_000;
            rows = 100_000;
        }

        // LIMIT/OFFSET: only when SQLite re-checks nothing and the order is the plan's.
        var others = constraints.Where(x => x.C.Operator is not (IndexOperator.Limit or IndexOperator.Offset)).ToList();
        if (others.All(x => omitted.Contains(x.Index)) && (info.OrderByCount == 0 || orderConsumed))
        {
            foreach (var (index, c) in constraints.Where(x => x.C.Operator is IndexOperator.Limit or IndexOperator.Offset))
            {
                Use(index, new PlanArgument(c.Operator == IndexOperator.Limit ? ArgumentRole.Limit : ArgumentRole.Offset, c.Operator), omit: true);
                description += c.Operator == IndexOperator.Limit ? " limit" : " offset";
            }
        }

        info.OrderByConsumed = orderConsumed && info.OrderByCount > 0;
        var columnsUsed = info.ColumnsUsed;
        var jsonColumns = Spec.Eponymous ? 1UL << TableSpec.BodyColumn : ((1UL << Math.Min(63, 2 + Spec.Columns.Count)) - 1) & ~1UL | (Spec.Columns.Count >= 61 ? 1UL << 63 : 0);
        var readsJson = (columnsUsed & jsonColumns) != 0;
        var plan = new DocsPlan(kind, indexName, equalities, orderConsumed && info.OrderByCount > 0, descending, orderColumn, arguments, description, readsJson);
        var key = string.Join("|", description, kind, indexName, equalities, plan.OrderConsumed, descending, orderColumn, readsJson, string.Join(",", arguments)); // every field: two plans differing only in direction are two plans
        if (!_planNumbers.TryGetValue(key, out var number))
        {
            number = _plans.Count;
            _plans.Add(plan);
            _planNumbers[key] = number;
        }

        info.IndexNumber = number;
        info.IndexString = description;
        info.EstimatedCost = cost;
        info.EstimatedRows = rows;
    }

    private readonly record struct IndexChoice(IndexRuntime Index, int[] Columns, int Equalities, bool Range, bool OrderServed);

    /// <summary>SD4: the ready, single-valued index of the collection whose declared-column paths serve the most equalities, then a range, then the order.</summary>
    private IndexChoice? ChooseIndex(List<(int Index, IndexConstraint C)> constraints, Func<int, bool> binary, int orderColumn)
    {
        IndexChoice? best = null;
        foreach (var index in Store.Catalog.IndexesOf(Spec.Collection!))
        {
            if (!index.Ready || index.Definition.IsMultikey)
            {
                continue;
            }

            var columns = index.Definition.JsonPaths.Select(Spec.ColumnOf).TakeWhile(c => c >= 0).ToArray();
            if (columns.Length == 0)
            {
                continue;
            }

            var equalities = 0;
            while (equalities < columns.Length && constraints.Any(x => x.C.Column == columns[equalities] && x.C.Operator == IndexOperator.Equal && binary(x.Index)))
            {
                equalities++;
            }

            var range = equalities < columns.Length && constraints.Any(x => x.C.Column == columns[equalities] &&
                x.C.Operator is IndexOperator.GreaterThan or IndexOperator.GreaterThanOrEqual or IndexOperator.LessThan or IndexOperator.LessThanOrEqual && binary(x.Index));
            var order = equalities < columns.Length && orderColumn == columns[equalities];
            var choice = new IndexChoice(index, columns, equalities, range, order);
            if (best == null || Score(choice) > Score(best.Value))
            {
                best = choice;
            }
        }

        return best is { } b && (b.Equalities > 0 || b.Range || b.OrderServed) ? b : null;

        static int Score(IndexChoice c) => c.Equalities * 4 + (c.Range ? 2 : 0) + (c.OrderServed ? 1 : 0);
    }

    public override void Update(ReadOnlySpan<SqliteValue> arguments)
    {
        if (Spec.Eponymous)
        {
            throw new VirtualTableException(SqliteConstants.ReadOnly, "voron_collection is read-only; write through a voron_docs table (CREATE VIRTUAL TABLE ... USING voron_docs(Collection, ...)).");
        }

        var pending = file.DocumentsForWrite();
        using var view = OpenView();
        if (arguments.Length == 1)
        {
            var id = IdOf(SqlValue.From(arguments[0]));
            var current = id == null ? null : view.Find(id, DocumentNames.IdBytes(id), readJson: false);
            if (current != null && current.Collection == Spec.Collection)
            {
                pending.Set(new PendingDocument(id!, DocumentNames.IdBytes(id!), Spec.Collection!, null, current.Expected));
            }

            return;
        }

        var values = new SqlValue[arguments.Length - 2];
        var unchanged = new bool[arguments.Length - 2];
        for (var i = 0; i < values.Length; i++)
        {
            unchanged[i] = arguments[i + 2].NoChange;
            values[i] = unchanged[i] ? SqlValue.Null : SqlValue.From(arguments[i + 2]);
        }

        if (arguments[0].IsNull)
        {
            Insert(view, pending, values);
        }
        else
        {
            UpdateRow(view, pending, SqlValue.From(arguments[0]), values, unchanged);
        }
    }

    private void Insert(DocumentView view, PendingDocuments pending, SqlValue[] values)
    {
        var idValue = values[TableSpec.IdColumn];
        string id;
        if (idValue.IsNull)
        {
            id = Store.Ids.Next(Spec.Collection!);
        }
        else
        {
            id = IdOf(idValue) ?? throw Constraint($"{TableName}.id must be text (a document id); got {idValue}.");
            Store.Ids.ObserveId(id);
        }

        var idBytes = ValidId(id);
        var existing = view.Find(id, idBytes, readJson: false);
        var expected = view.ExpectedForAbsent(id); // SD6: a document this transaction deleted still expects the version it deleted
        if (existing != null)
        {
            switch (VirtualTableRegistry.OnConflict(db))
            {
                case 5: // REPLACE
                    expected = existing.Expected;
                    break;
                case 2: // IGNORE
                    if (ConstraintSupport && SqliteNative.VtabConfigIsSafe)
                    {
                        // SQLITE_CONSTRAINT under OR IGNORE: SQLite skips the row and does not count it
                        // in changes(), as for a table (SQLITE_OK would count it).
                        throw Constraint($"UNIQUE constraint failed: {TableName}.id: a document '{id}' exists (INSERT OR IGNORE skips it).");
                    }

                    return;
                default:
                    throw Constraint($"UNIQUE constraint failed: {TableName}.id: a document '{id}' exists{(existing.Collection != Spec.Collection ? $" (in collection '{existing.Collection}')" : "")}. Use INSERT OR REPLACE to replace it, or UPDATE.");
            }

            if (existing.Collection != Spec.Collection)
            {
                throw Constraint($"Document '{id}' belongs to collection '{existing.Collection}'; it cannot be stored in '{Spec.Collection}'. Delete it first, or use another id.");
            }
        }

        var body = values[TableSpec.BodyColumn];
        var json = body.IsNull ? "{}"u8.ToArray() : ValidBody(body, id);
        var sets = new List<(JsonPath, SqlValue)>();
        for (var c = 0; c < Spec.Columns.Count; c++)
        {
            if (!values[c + 2].IsNull)
            {
                sets.Add((Spec.Columns[c].Path, JsonValues.ApplyAffinity(values[c + 2], Spec.Columns[c].Affinity)));
            }
        }

        CheckReadOnly(values, null);
        Write(view, pending, new PendingDocument(id, idBytes, Spec.Collection!, WithPaths(json, sets, id), expected));
    }

    private void UpdateRow(DocumentView view, PendingDocuments pending, SqlValue key, SqlValue[] values, bool[] unchanged)
    {
        var id = IdOf(key) ?? throw Constraint($"{TableName}: no document with id {key}.");
        var newId = values[TableSpec.IdColumn];
        if (!unchanged[TableSpec.IdColumn] && IdOf(newId) != id)
        {
            throw Constraint($"{TableName}.id cannot change ('{id}' to {newId}): a document's id is its key. INSERT a copy under the new id and DELETE '{id}'.");
        }

        // SD5: the SET body (NULL: {}) or the stored one, then every path column the statement
        // SETs written into it, even with the value the path holds (SET b = 0 over false writes 0).
        var idBytes = DocumentNames.IdBytes(id);
        var current = view.Find(id, idBytes) ?? throw Constraint($"{TableName}: document '{id}' is gone.");
        var body = values[TableSpec.BodyColumn];
        var json = unchanged[TableSpec.BodyColumn] ? current.Json : body.IsNull ? "{}"u8.ToArray() : ValidBody(body, id);
        var sets = new List<(JsonPath, SqlValue)>();
        for (var c = 0; c < Spec.Columns.Count; c++)
        {
            if (!unchanged[c + 2])
            {
                sets.Add((Spec.Columns[c].Path, JsonValues.ApplyAffinity(values[c + 2], Spec.Columns[c].Affinity)));
            }
        }

        CheckReadOnly(values, current, unchanged);
        Write(view, pending, new PendingDocument(id, idBytes, Spec.Collection!, WithPaths(json, sets, id), current.Expected));
    }

    private void CheckReadOnly(SqlValue[] values, DocumentState? current, bool[]? unchanged = null)
    {
        var version = values[Spec.VersionColumn];
        if (!(unchanged?[Spec.VersionColumn] ?? false) && !version.IsNull && (current == null || version.Kind != SqlKind.Integer || version.Integer != current.Version))
        {
            throw Constraint($"{TableName}.version is the store's (it changes on every write); read it, and use WHERE version = ? to update only the version you read.");
        }

        var modified = values[Spec.LastModifiedColumn];
        if (!(unchanged?[Spec.LastModifiedColumn] ?? false) && !modified.IsNull && (current == null || modified.Text != DocsCursor.Timestamp(current.Ticks)))
        {
            throw Constraint($"{TableName}.last_modified is the store's (set on every write); it cannot be written.");
        }
    }

    private void Write(DocumentView view, PendingDocuments pending, PendingDocument change)
    {
        if (Store.Writes.SizeProblem(change.Json!.Length, change.Id) is { } tooLarge)
        {
            throw Constraint(tooLarge); // WP1's limit, checked when the statement runs: SQLITE_CONSTRAINT
        }

        if (UniqueIndexes.Check(view, change, replace: VirtualTableRegistry.OnConflict(db) == 5) is { } inTheWay)
        {
            foreach (var other in inTheWay)
            {
                // SD5: OR REPLACE deletes the documents that hold the new document's unique values, as SQLite's REPLACE does.
                var otherBytes = DocumentNames.IdBytes(other);
                if (view.Find(other, otherBytes, readJson: false) is { } found)
                {
                    pending.Set(new PendingDocument(other, otherBytes, found.Collection, null, found.Expected));
                }
            }
        }

        pending.Set(change);
    }

    private byte[] WithPaths(byte[] json, List<(JsonPath, SqlValue)> sets, string id)
    {
        if (sets.Count == 0)
        {
            return json;
        }

        try
        {
            return JsonValues.SetPaths(json, sets);
        }
        catch (Exception e) when (e is ArgumentException or InvalidJsonException)
        {
            throw Constraint($"{TableName}: document '{id}': {e.Message}");
        }
    }

    private byte[] ValidBody(SqlValue body, string id)
    {
        if (body.Kind != SqlKind.Text)
        {
            throw Constraint($"{TableName}.body must be a JSON object as text; got {body.Kind.ToString().ToUpperInvariant()}.");
        }

        try
        {
            JsonValidation.ValidateObject(body.Bytes, id);
        }
        catch (Exception e) when (e is InvalidJsonException or ArgumentException or DocumentLimitException)
        {
            throw Constraint($"{TableName}.body of '{id}' is not one valid JSON object: {e.Message}");
        }

        return body.Bytes!;
    }

    private byte[] ValidId(string id)
    {
        try
        {
            return DocumentNames.IdBytes(id);
        }
        catch (ArgumentException e)
        {
            throw Constraint($"{TableName}.id '{id}' is not a valid document id: {e.Message}");
        }
    }

    /// <summary>An id as SQLite compares a value with the TEXT id column: text as is, numbers as their text, NULL and blobs nothing.</summary>
    internal static string? IdOf(SqlValue value) => value.Kind switch
    {
        SqlKind.Text => value.Text,
        SqlKind.Integer => value.Integer.ToString(System.Globalization.CultureInfo.InvariantCulture),
        SqlKind.Real => SqlValue.RealText(value.Real),
        _ => null,
    };

    private static VirtualTableException Constraint(string message, Exception? inner = null) => new(SqliteConstants.Constraint, message, inner);

    public override void Sync() => file.CheckDocumentsBeforeCommit(Store); // SD8

    private readonly TableSavepoints _savepoints = new();

    public override void Begin() => _savepoints.Join(file.DocumentsForSavepoint()?.Position ?? 0); // SD7

    public override void Savepoint(int level) => _savepoints.Begin(level, file.DocumentsForSavepoint()?.Position ?? 0);

    public override void Release(int level) => _savepoints.Release(level);

    public override void RollbackTo(int level)
    {
        var position = _savepoints.RollbackTo(level);
        file.PendingDocuments?.UndoTo(position);
    }

    public override void Rollback()
    {
        _savepoints.Clear();
        file.PendingDocuments?.Clear();
    }

    public override void Commit() => _savepoints.Clear();
}
