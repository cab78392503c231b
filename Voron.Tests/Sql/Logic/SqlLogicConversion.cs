using System.Text.RegularExpressions;

namespace Voron.Tests.Sql.Logic;

/// <summary>
/// Turns a sqllogictest script's tables into converted tables (voron_docs, or plain tables that
/// stand in for them: <see cref="ISqlLogicTarget"/>), one statement at a time, keeping track of
/// which tables and indexes exist. Queries, INSERTs, UPDATEs, DELETEs and views run unchanged.
/// The rules, per statement:
/// <list type="number">
/// <item>Rule 1: <c>CREATE TABLE tN(...)</c>: a converted table over collection tN (tN_2, tN_3 ... when
///   the script creates tN again after dropping it: the script expects an empty table, and DROP
///   TABLE of a voron_docs table leaves the collection's documents, docs/sql.md). A column's PRIMARY
///   KEY or UNIQUE becomes a unique index (<c>tN_col_pk</c> / <c>tN_col_unique</c>); other
///   constraints are refused (<see cref="SqlLogicTable.TryParse"/>).</item>
/// <item>Rule 2: <c>CREATE [UNIQUE] INDEX i ON tN(cols)</c> on a converted table: the same index made by
///   the target (an IndexDefinition named i on voron_docs); ASC / DESC dropped. A second index of
///   the same name is an error, as in SQLite.</item>
/// <item>Rule 3: <c>DROP INDEX i</c> of such an index: dropped by the target; an error when it is gone.</item>
/// <item>Rule 4: <c>DROP TABLE tN</c> of a converted table runs as written; when it succeeds its indexes
///   are forgotten (and dropped from the document store, as SQLite drops a table's indexes).</item>
/// <item>Rule 5: Skipped, counted and reported: <c>CREATE TRIGGER</c> on a converted table (SQLite allows
///   no trigger on a virtual table), <c>DROP TRIGGER</c> of a trigger so skipped, <c>REINDEX</c> of a
///   converted table or index (a virtual table has no SQLite index to rebuild), <c>ALTER TABLE</c>
///   of a converted table.</item>
/// <item>Rule 6: A record of several statements (<c>INSERT ...; DROP INDEX t1i1;</c>) is split at its
///   top-level ';' and each statement converted by these rules, in order.</item>
/// </list>
/// Every other statement (and every statement naming only tables that are not converted, e.g.
/// <c>REINDEX tXiX</c> on a name that does not exist) runs unchanged, so its error is SQLite's own.
/// </summary>
internal sealed partial class SqlLogicConversion(SqliteConnection connection, ISqlLogicTarget target)
{
    private readonly Dictionary<string, SqlLogicTable> _tables = new(StringComparer.OrdinalIgnoreCase);
    private readonly Dictionary<string, string> _collections = new(StringComparer.OrdinalIgnoreCase);
    private readonly Dictionary<string, int> _generations = new(StringComparer.OrdinalIgnoreCase);
    private readonly Dictionary<string, SqlLogicIndex> _indexes = new(StringComparer.OrdinalIgnoreCase);
    private readonly HashSet<string> _skippedTriggers = new(StringComparer.OrdinalIgnoreCase);

    public SqliteConnection Connection => connection;

    public ISqlLogicTarget Target => target;

    /// <summary>Every index a script's CREATE INDEX made (rule 2), dropped or not: the plans should name one of them.</summary>
    public List<SqlLogicIndex> ScriptIndexes { get; } = [];

    /// <summary>How many statements ran converted (rules 1–3) rather than as written.</summary>
    public int Converted { get; private set; }

    public SqlLogicStep Convert(SqlLogicStatement statement)
    {
        var parts = Split(statement.Sql);
        if (parts.Count <= 1)
        {
            return ConvertOne(statement.Sql);
        }

        // A record of several statements (e.g. "INSERT ...; DROP INDEX t1i1;"): each converted when
        // its turn comes (an earlier one may create the table a later one names) and run in order,
        // stopping at the first error as SQLite does.
        return SqlLogicStep.Call(() =>
        {
            foreach (var part in parts)
            {
                var step = ConvertOne(part);
                if (step.SkipReason != null)
                {
                    throw new NotSupportedException($"line {statement.Line}: a record of several statements with one to skip ({step.SkipReason}): {statement.Sql}");
                }

                string? error;
                try
                {
                    error = step.Apply != null ? step.Apply() : Execute(step.Sql!);
                }
                catch (SqliteException e)
                {
                    error = e.Message;
                }

                if (error != null)
                {
                    return error;
                }

                step.AfterSuccess?.Invoke();
            }

            return null;
        });
    }

    /// <summary>
    /// The statements of a record, split at each ';' outside quotes and outside a CREATE TRIGGER's
    /// BEGIN ... END (whose body holds ';'s of its own).
    /// </summary>
    internal static List<string> Split(string sql)
    {
        var parts = new List<string>();
        var start = 0;
        char? quote = null;
        for (var i = 0; i < sql.Length; i++)
        {
            var c = sql[i];
            if (quote != null)
            {
                quote = c == quote ? null : quote;
                continue;
            }

            if (c is '\'' or '"' or '`' or '[')
            {
                quote = c == '[' ? ']' : c;
                continue;
            }

            if (c != ';')
            {
                continue;
            }

            var part = sql[start..i];
            if (TriggerStart().IsMatch(part) && !TriggerEnd().IsMatch(part))
            {
                continue; // a ';' inside the trigger's body
            }

            if (part.Trim().Length != 0)
            {
                parts.Add(part.Trim());
            }

            start = i + 1;
        }

        if (sql[start..].Trim().Length != 0)
        {
            parts.Add(sql[start..].Trim());
        }

        return parts;
    }

    private string? Execute(string sql)
    {
        connection.Execute(sql);
        return null;
    }

    private SqlLogicStep ConvertOne(string sql)
    {
        if (SqlLogicTable.TryParse(sql, out var table))
        {
            return CreateTable(table);
        }

        if (CreateIndex().Match(sql) is { Success: true } createIndex && _tables.ContainsKey(createIndex.Groups["table"].Value))
        {
            return CreateIndex(createIndex);
        }

        if (DropIndex().Match(sql) is { Success: true } dropIndex && _indexes.TryGetValue(dropIndex.Groups["name"].Value, out var dropped))
        {
            Converted++;
            return SqlLogicStep.Call(() => target.DropIndex(connection, dropped), () => _indexes.Remove(dropped.Name));
        }

        if (DropTable().Match(sql) is { Success: true } dropTable && _tables.ContainsKey(dropTable.Groups["name"].Value))
        {
            var name = dropTable.Groups["name"].Value;
            return SqlLogicStep.Run(sql, () => TableDropped(name));
        }

        if (CreateTrigger().Match(sql) is { Success: true } createTrigger && _tables.ContainsKey(createTrigger.Groups["table"].Value))
        {
            _skippedTriggers.Add(createTrigger.Groups["name"].Value);
            return SqlLogicStep.Skip("CREATE TRIGGER on a voron_docs table (SQLite allows no trigger on a virtual table)");
        }

        if (DropTrigger().Match(sql) is { Success: true } dropTrigger && _skippedTriggers.Contains(dropTrigger.Groups["name"].Value))
        {
            return SqlLogicStep.Skip("DROP TRIGGER of a trigger whose CREATE TRIGGER was skipped");
        }

        if (Reindex().Match(sql) is { Success: true } reindex && (_tables.ContainsKey(reindex.Groups["name"].Value) || _indexes.ContainsKey(reindex.Groups["name"].Value)))
        {
            return SqlLogicStep.Skip("REINDEX of a voron_docs table or IndexDefinition (no SQLite index to rebuild)");
        }

        if (AlterTable().Match(sql) is { Success: true } alter && _tables.ContainsKey(alter.Groups["name"].Value))
        {
            return SqlLogicStep.Skip("ALTER TABLE of a voron_docs table");
        }

        return SqlLogicStep.Run(sql);
    }

    private SqlLogicStep CreateTable(SqlLogicTable table)
    {
        Converted++;
        var generation = _generations.GetValueOrDefault(table.Name) + 1;
        var collection = generation == 1 ? table.Name : table.Name + "_" + generation.ToString(CultureInfo.InvariantCulture);
        var keys = table.UniqueKeys
            .Select(k => new SqlLogicIndex($"{table.Name}_{string.Join('_', k.Columns)}_{(k.IsPrimaryKey ? "pk" : "unique")}", table.Name, collection, k.Columns, IsUnique: true, FromScript: false))
            .ToList();
        return SqlLogicStep.Call(
            () => target.CreateTable(connection, table, collection, keys),
            () =>
            {
                _generations[table.Name] = generation;
                _tables[table.Name] = table;
                _collections[table.Name] = collection;
                foreach (var key in keys)
                {
                    _indexes[key.Name] = key;
                }
            });
    }

    private SqlLogicStep CreateIndex(Match match)
    {
        Converted++;
        var tableName = match.Groups["table"].Value;
        var columns = match.Groups["columns"].Value.Split(',')
            .Select(c => c.Trim().Split((char[])[' ', '\t'], StringSplitOptions.RemoveEmptyEntries)[0]) // "e8 DESC" -> e8
            .ToList();
        var index = new SqlLogicIndex(match.Groups["name"].Value, tableName, _collections[tableName], columns, match.Groups["unique"].Success, FromScript: true);
        return SqlLogicStep.Call(
            () => _indexes.ContainsKey(index.Name) ? $"index {index.Name} already exists" : target.CreateIndex(connection, index),
            () =>
            {
                _indexes[index.Name] = index;
                ScriptIndexes.Add(index);
            });
    }

    private void TableDropped(string name)
    {
        var indexes = _indexes.Values.Where(i => string.Equals(i.Table, name, StringComparison.OrdinalIgnoreCase)).ToList();
        target.TableDropped(connection, indexes);
        foreach (var index in indexes)
        {
            _indexes.Remove(index.Name);
        }

        _tables.Remove(name);
        _collections.Remove(name);
    }

    [GeneratedRegex(@"^\s*CREATE\s+(?<unique>UNIQUE\s+)?INDEX\s+(?<name>\w+)\s+ON\s+(?<table>\w+)\s*\((?<columns>[^)]*)\)\s*;?\s*$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex CreateIndex();

    [GeneratedRegex(@"^\s*DROP\s+INDEX\s+(IF\s+EXISTS\s+)?(?<name>\w+)\s*;?\s*$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex DropIndex();

    [GeneratedRegex(@"^\s*DROP\s+TABLE\s+(IF\s+EXISTS\s+)?(?<name>\w+)\s*;?\s*$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex DropTable();

    [GeneratedRegex(@"^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\s+(IF\s+NOT\s+EXISTS\s+)?(?<name>\w+)\b.*?\bON\s+(?<table>\w+)", RegexOptions.IgnoreCase | RegexOptions.Singleline | RegexOptions.CultureInvariant)]
    private static partial Regex CreateTrigger();

    [GeneratedRegex(@"^\s*DROP\s+TRIGGER\s+(IF\s+EXISTS\s+)?(?<name>\w+)\s*;?\s*$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex DropTrigger();

    [GeneratedRegex(@"^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\b", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex TriggerStart();

    [GeneratedRegex(@"\bEND\s*$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex TriggerEnd();

    [GeneratedRegex(@"^\s*REINDEX\s+(?<name>\w+)\s*;?\s*$", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex Reindex();

    [GeneratedRegex(@"^\s*ALTER\s+TABLE\s+(?<name>\w+)", RegexOptions.IgnoreCase | RegexOptions.CultureInvariant)]
    private static partial Regex AlterTable();
}
