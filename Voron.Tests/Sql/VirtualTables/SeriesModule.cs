using Voron.SqliteVfs.Interop.VirtualTables;
using SqliteType = Voron.SqliteVfs.Interop.VirtualTables.SqliteType;

namespace Voron.Tests.Sql.VirtualTables;

/// <summary>
/// A toy eponymous, read-only table-valued function: <c>SELECT value FROM name(start, stop)</c>
/// gives start..stop (default 1..10). Its planner logs what xBestIndex saw and what xFilter got,
/// so tests can assert what SQLite hands a module.
/// </summary>
/// <remarks>
/// Plan (idxNum bits, arguments in this order): 1 start=?, 2 stop=?, 4 value IN (list, whole),
/// 8 descending (ORDER BY value DESC consumed), 16 value &gt; ? (ignored by Filter, so an omitted
/// constraint that SQLite does not re-check shows in the rows).
/// </remarks>
internal sealed class SeriesModule(string name) : VirtualTableModule
{
    public override string Name => name;

    public override bool EponymousOnly => true;

    public List<string> Log { get; } = [];

    /// <summary>Callback name ("Connect", "BestIndex", "Open", "Filter", "Next", "Column", "Close") -> what it throws.</summary>
    public Func<string, Exception?> Fault { get; set; } = _ => null;

    public bool ConsumeOrderBy { get; set; } = true;

    /// <summary>Whether the plan marks <c>value &gt; ?</c> omit (SQLite then does not re-check it, and Filter ignores it).</summary>
    public bool OmitGreaterThan { get; set; }

    public override VirtualTable Connect(VirtualTableContext context, bool create)
    {
        Check("Connect");
        Log.Add($"Connect {context.TableName} create={create} args={context.Arguments.Count}");
        return new SeriesTable(this);
    }

    public void Check(string callback)
    {
        if (Fault(callback) is { } error)
        {
            throw error;
        }
    }

    private sealed class SeriesTable(SeriesModule module) : VirtualTable
    {
        public override string Declaration => "CREATE TABLE x(value INTEGER, start HIDDEN, stop HIDDEN)";

        public override void BestIndex(IndexInfo info)
        {
            module.Check("BestIndex");
            int start = -1, stop = -1, list = -1, greater = -1;
            for (var i = 0; i < info.ConstraintCount; i++)
            {
                var c = info.Constraint(i);
                module.Log.Add($"constraint {c.Column} {c.Operator} usable={c.Usable}");
                if (!c.Usable)
                {
                    continue;
                }

                switch (c.Column, c.Operator)
                {
                    case (1, IndexOperator.Equal):
                        start = i;
                        if (info.TryGetRightValue(i, out var value))
                        {
                            module.Log.Add($"rhs start={value.Int64}");
                        }

                        break;
                    case (2, IndexOperator.Equal):
                        stop = i;
                        break;
                    case (0, IndexOperator.Equal):
                        module.Log.Add($"collation {info.Collation(i)}");
                        if (info.TryUseInList(i))
                        {
                            list = i;
                        }

                        break;
                    case (0, IndexOperator.GreaterThan):
                        greater = i;
                        break;
                }
            }

            var plan = 0;
            var argv = 0;
            var text = new StringBuilder("series");
            foreach (var (constraint, bit, label, omit) in new[] { (start, 1, "start", true), (stop, 2, "stop", true), (list, 4, "in", true), (greater, 16, "gt", module.OmitGreaterThan) })
            {
                if (constraint >= 0)
                {
                    info.Use(constraint, ++argv, omit);
                    plan |= bit;
                    text.Append(' ').Append(label);
                }
            }

            for (var i = 0; i < info.OrderByCount; i++)
            {
                var o = info.OrderBy(i);
                module.Log.Add($"orderby {o.Column} desc={o.Descending}");
            }

            if (module.ConsumeOrderBy && info.OrderByCount == 1 && info.OrderBy(0).Column == 0)
            {
                info.OrderByConsumed = true;
                if (info.OrderBy(0).Descending)
                {
                    plan |= 8;
                    text.Append(" desc");
                }
            }

            module.Log.Add($"colUsed=0x{info.ColumnsUsed:x} distinct={info.Distinct}");
            info.IndexNumber = plan;
            info.IndexString = text.ToString();
            info.EstimatedCost = (plan & 3) == 3 ? 10 : 1_000_000;
            info.EstimatedRows = (plan & 3) == 3 ? 10 : 1_000_000;
        }

        public override VirtualTableCursor OpenCursor()
        {
            module.Check("Open");
            return new SeriesCursor(module);
        }
    }

    private sealed class SeriesCursor(SeriesModule module) : VirtualTableCursor
    {
        private long[] _rows = [];
        private int _position;
        private long _start;
        private long _stop;

        public override void Filter(int indexNumber, string? indexString, ReadOnlySpan<SqliteValue> arguments)
        {
            module.Check("Filter");
            var rendered = new List<string>();
            var next = 0;
            _start = (indexNumber & 1) != 0 ? arguments[next++].Int64 : 1;
            _stop = (indexNumber & 2) != 0 ? arguments[next++].Int64 : 10;
            var listArgument = (indexNumber & 4) != 0 ? next : -1;
            List<long>? list = listArgument >= 0 ? arguments[listArgument].InValues(v => v.Int64) : null;
            for (var i = 0; i < arguments.Length; i++)
            {
                rendered.Add(i == listArgument
                    ? $"IN({string.Join(",", list!)})"
                    : arguments[i].Type == SqliteType.Integer ? arguments[i].Int64.ToString(CultureInfo.InvariantCulture) : arguments[i].Type.ToString());
            }

            module.Log.Add($"Filter {indexNumber} '{indexString}' [{string.Join(", ", rendered)}]");
            var rows = new List<long>();
            for (var v = _start; v <= _stop; v++)
            {
                if (list == null || list.Contains(v))
                {
                    rows.Add(v);
                }
            }

            if ((indexNumber & 8) != 0)
            {
                rows.Reverse();
            }

            _rows = [.. rows];
            _position = 0;
        }

        public override void Next()
        {
            module.Check("Next");
            _position++;
        }

        public override bool Eof => _position >= _rows.Length;

        public override void Column(ResultContext result, int column)
        {
            module.Check("Column");
            result.SetInt64(column switch
            {
                0 => _rows[_position],
                1 => _start,
                _ => _stop,
            });
        }

        public override long RowId => _rows[_position];

        public override void Close() => module.Check("Close");
    }
}
