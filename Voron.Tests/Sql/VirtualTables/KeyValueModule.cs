using Voron.SqliteVfs.Interop;
using Voron.SqliteVfs.Interop.VirtualTables;
using SqliteType = Voron.SqliteVfs.Interop.VirtualTables.SqliteType;

namespace Voron.Tests.Sql.VirtualTables;

/// <summary>
/// A toy writable in-memory table <c>CREATE VIRTUAL TABLE t USING name</c> declared
/// <c>(k TEXT PRIMARY KEY, v) WITHOUT ROWID</c> with constraint support. It logs every
/// transaction callback and xUpdate, and keeps a copy of its rows per savepoint level so a
/// ROLLBACK TO / failed statement really undoes.
/// </summary>
internal sealed class KeyValueModule(string name) : VirtualTableModule
{
    public override string Name => name;

    public List<string> Log { get; } = [];

    /// <summary>Callback name ("Connect", "BestIndex", "Update", "Begin", "Sync", "Commit", "Rollback", "Savepoint", "Release", "RollbackTo", "Destroy") -> what it throws.</summary>
    public Func<string, Exception?> Fault { get; set; } = _ => null;

    /// <summary>Rows that make xUpdate fail (SQLITE_CONSTRAINT) when inserted.</summary>
    public HashSet<string> RejectedKeys { get; } = [];

    /// <summary>Whether tables declare SQLITE_VTAB_CONSTRAINT_SUPPORT (they undo nothing themselves when xUpdate fails).</summary>
    public bool ConstraintSupport { get; init; } = true;

    public override VirtualTable Connect(VirtualTableContext context, bool create)
    {
        Check("Connect");
        Log.Add(create ? "Create" : "Connect");
        return new KeyValueTable(this, context);
    }

    public void Check(string callback)
    {
        if (Fault(callback) is { } error)
        {
            throw error;
        }
    }

    /// <summary>A copied SQLite value (text, integer, real, blob or null).</summary>
    internal static object? Copy(SqliteValue value) => value.Type switch
    {
        SqliteType.Integer => value.Int64,
        SqliteType.Float => value.Double,
        SqliteType.Text => value.Text,
        SqliteType.Blob => value.Blob.ToArray(),
        _ => null,
    };

    internal static string Show(SqliteValue value) => value.Type switch
    {
        SqliteType.Null => "NULL",
        SqliteType.Text => $"'{value.Text}'",
        _ => Convert.ToString(Copy(value), System.Globalization.CultureInfo.InvariantCulture)!,
    };

    private sealed class KeyValueTable(KeyValueModule module, VirtualTableContext context) : VirtualTable
    {
        private SortedDictionary<string, object?> _rows = new(StringComparer.Ordinal);
        private SortedDictionary<string, object?> _atBegin = new(StringComparer.Ordinal);
        private readonly List<SortedDictionary<string, object?>> _savepoints = [];
        private int _generated;

        public override string Declaration => "CREATE TABLE x(k TEXT PRIMARY KEY, v) WITHOUT ROWID";

        public override bool ConstraintSupport => module.ConstraintSupport;

        public SortedDictionary<string, object?> Rows => _rows;

        public List<string> Log => module.Log;

        public override void BestIndex(IndexInfo info)
        {
            module.Check("BestIndex");
            for (var i = 0; i < info.ConstraintCount; i++)
            {
                var c = info.Constraint(i);
                if (c.Usable && c.Column == 0 && c.Operator == IndexOperator.Equal)
                {
                    info.Use(i, 1, omit: true);
                    info.IndexNumber = 1;
                    info.IndexString = "kv key";
                    info.Unique = true;
                    info.EstimatedCost = 1;
                    info.EstimatedRows = 1;
                    return;
                }
            }

            info.IndexString = "kv scan";
            info.EstimatedCost = 1000;
            info.EstimatedRows = 1000;
        }

        public override VirtualTableCursor OpenCursor() => new KeyValueCursor(this);

        public override void Update(ReadOnlySpan<SqliteValue> arguments)
        {
            module.Check("Update");
            var line = new StringBuilder(arguments.Length == 1 ? "delete" : arguments[0].IsNull ? "insert" : "update");
            line.Append(" argc=").Append(arguments.Length);
            for (var i = 0; i < arguments.Length; i++)
            {
                line.Append($" [{i}]={Show(arguments[i])}");
            }

            var onConflict = VirtualTableRegistry.OnConflict(context.Db);
            line.Append(" onconflict=").Append(onConflict);
            if (arguments.Length > 3 && arguments[3].NoChange)
            {
                line.Append(" v-unchanged");
            }

            module.Log.Add(line.ToString());
            if (arguments.Length == 1)
            {
                _rows.Remove(arguments[0].Text);
                return;
            }

            var key = arguments[2].IsNull ? $"gen/{++_generated}" : arguments[2].Text;
            var value = arguments[3].NoChange && _rows.TryGetValue(arguments[0].Text, out var old) ? old : Copy(arguments[3]);
            if (module.RejectedKeys.Contains(key))
            {
                throw new VirtualTableException(SqliteConstants.Constraint, $"CHECK constraint failed: {context.TableName}.k <> '{key}'");
            }

            if (arguments[0].IsNull)
            {
                if (_rows.ContainsKey(key) && onConflict != 5)
                {
                    throw new VirtualTableException(SqliteConstants.Constraint, $"UNIQUE constraint failed: {context.TableName}.k");
                }
            }
            else
            {
                _rows.Remove(arguments[0].Text);
            }

            _rows[key] = value;
        }

        public override void Begin()
        {
            module.Check("Begin");
            module.Log.Add("Begin");
            _atBegin = new(_rows, StringComparer.Ordinal);
            _savepoints.Clear();
        }

        public override void Sync()
        {
            module.Check("Sync");
            module.Log.Add("Sync");
        }

        public override void Commit()
        {
            module.Check("Commit");
            module.Log.Add("Commit");
            _savepoints.Clear();
        }

        public override void Rollback()
        {
            module.Check("Rollback");
            module.Log.Add("Rollback");
            _rows = _atBegin;
            _savepoints.Clear();
        }

        public override void Savepoint(int level)
        {
            module.Check("Savepoint");
            module.Log.Add($"Savepoint({level})");
            while (_savepoints.Count > level)
            {
                _savepoints.RemoveAt(_savepoints.Count - 1);
            }

            while (_savepoints.Count <= level)
            {
                _savepoints.Add(new(_rows, StringComparer.Ordinal));
            }
        }

        public override void Release(int level)
        {
            module.Check("Release");
            module.Log.Add($"Release({level})");
            while (_savepoints.Count > level)
            {
                _savepoints.RemoveAt(_savepoints.Count - 1);
            }
        }

        public override void RollbackTo(int level)
        {
            module.Check("RollbackTo");
            module.Log.Add($"RollbackTo({level})");
            if (level < _savepoints.Count)
            {
                _rows = new(_savepoints[level], StringComparer.Ordinal);
            }
        }

        public override void Destroy()
        {
            module.Check("Destroy");
            module.Log.Add("Destroy");
        }
    }

    private sealed class KeyValueCursor(KeyValueTable table) : VirtualTableCursor
    {
        private KeyValuePair<string, object?>[] _rows = [];
        private int _position;

        public override void Filter(int indexNumber, string? indexString, ReadOnlySpan<SqliteValue> arguments)
        {
            _rows = indexNumber == 1
                ? table.Rows.TryGetValue(arguments[0].Text, out var v) ? [new(arguments[0].Text, v)] : []
                : [.. table.Rows];
            _position = 0;
        }

        public override void Next() => _position++;

        public override bool Eof => _position >= _rows.Length;

        public override void Column(ResultContext result, int column)
        {
            var (key, value) = _rows[_position];
            if (column == 1 && result.NoChange)
            {
                table.Log.Add("Column(v) nochange");
                return; // an UPDATE that does not SET v: xUpdate sees the value as unchanged
            }

            if (column == 0)
            {
                result.SetText(key);
                return;
            }

            switch (value)
            {
                case null:
                    result.SetNull();
                    break;
                case long l:
                    result.SetInt64(l);
                    break;
                case double d:
                    result.SetDouble(d);
                    break;
                case string s:
                    result.SetText(s);
                    break;
                case byte[] b:
                    result.SetBlob(b);
                    break;
            }
        }
    }
}
