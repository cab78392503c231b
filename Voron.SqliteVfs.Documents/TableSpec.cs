using System.Text;
using Voron.Documents.Indexing;
using Voron.Documents.Storage;

namespace Voron.SqliteVfs.Documents;

/// <summary>SQLite's column affinities, from a declared type.</summary>
internal enum ColumnAffinity
{
    None,
    Text,
    Numeric,
    Integer,
    Real,
}

/// <summary>One declared path column: <c>name='$.path' [TYPE]</c>.</summary>
internal sealed record PathColumn(string Name, JsonPath Path, string Type, ColumnAffinity Affinity);

/// <summary>
/// SD1: what <c>USING voron_docs(Collection, name='$.path' [TYPE], ..., [id HIDDEN], [body HIDDEN])</c>
/// declares, parsed and checked, and the table SQLite is told about. Column numbers: 0 id, 1 body,
/// 2.. the path columns in order, then version and last_modified (hidden).
/// </summary>
internal sealed class TableSpec
{
    public const int IdColumn = 0;
    public const int BodyColumn = 1;

    private static readonly string[] Reserved = ["id", "body", "version", "last_modified", "collection"];

    /// <summary>voron_collection('X'): id, body, version, last_modified and the hidden collection argument; read-only.</summary>
    public static TableSpec CollectionFunction { get; } = new(null, [], false, false) { Eponymous = true };

    private TableSpec(string? collection, IReadOnlyList<PathColumn> columns, bool idHidden, bool bodyHidden)
    {
        Collection = collection;
        Columns = columns;
        IdHidden = idHidden;
        BodyHidden = bodyHidden;
    }

    /// <summary>The collection; null for voron_collection, whose collection is its argument.</summary>
    public string? Collection { get; }

    public bool Eponymous { get; private init; }

    /// <summary>voron_collection's hidden argument column.</summary>
    public int CollectionColumn => 4 + Columns.Count;

    public IReadOnlyList<PathColumn> Columns { get; }

    public bool IdHidden { get; }

    public bool BodyHidden { get; }

    public int VersionColumn => 2 + Columns.Count;

    public int LastModifiedColumn => 3 + Columns.Count;

    /// <summary>The path column behind SQL column <paramref name="column"/>, or null for id, body, version, last_modified.</summary>
    public PathColumn? PathOf(int column) => column >= 2 && column < 2 + Columns.Count ? Columns[column - 2] : null;

    /// <summary>The SQL column of a path, or -1.</summary>
    public int ColumnOf(JsonPath path)
    {
        for (var i = 0; i < Columns.Count; i++)
        {
            if (Columns[i].Path == path)
            {
                return i + 2;
            }
        }

        return -1;
    }

    public string Declaration()
    {
        if (Eponymous)
        {
            return "CREATE TABLE x(id TEXT PRIMARY KEY, body TEXT, version INTEGER, last_modified TEXT, collection HIDDEN) WITHOUT ROWID";
        }

        var sql = new StringBuilder("CREATE TABLE x(id ");
        sql.Append(IdHidden ? "HIDDEN TEXT" : "TEXT").Append(" PRIMARY KEY, body ").Append(BodyHidden ? "HIDDEN TEXT" : "TEXT");
        foreach (var column in Columns)
        {
            sql.Append(", \"").Append(column.Name.Replace("\"", "\"\"", StringComparison.Ordinal)).Append('"');
            if (column.Type.Length > 0)
            {
                sql.Append(' ').Append(column.Type);
            }
        }

        return sql.Append(", version HIDDEN INTEGER, last_modified HIDDEN TEXT) WITHOUT ROWID").ToString();
    }

    /// <summary>Parses the module arguments; throws <see cref="ArgumentException"/> saying what is wrong and what a valid spec looks like.</summary>
    public static TableSpec Parse(IReadOnlyList<string> arguments)
    {
        const string Example = "Write it as USING voron_docs(Order, customer='$.customer' TEXT, total='$.total' REAL).";
        if (arguments.Count == 0 || string.IsNullOrWhiteSpace(arguments[0]))
        {
            throw new ArgumentException("voron_docs needs the collection as its first argument. " + Example);
        }

        var collection = Unquote(arguments[0].Trim());
        try
        {
            DocumentNames.CollectionBytes(collection);
        }
        catch (ArgumentException e)
        {
            throw new ArgumentException($"voron_docs: '{collection}' is not a valid collection name: {e.Message}", e);
        }

        var columns = new List<PathColumn>();
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        bool idHidden = false, bodyHidden = false;
        foreach (var raw in arguments.Skip(1))
        {
            var argument = raw.Trim();
            var upper = argument.ToUpperInvariant();
            if (upper is "ID HIDDEN" or "BODY HIDDEN")
            {
                idHidden |= upper == "ID HIDDEN";
                bodyHidden |= upper == "BODY HIDDEN";
                continue;
            }

            var equals = argument.IndexOf('=');
            if (equals <= 0)
            {
                throw new ArgumentException($"voron_docs: column spec '{argument}' has no path. A column is name='$.path' followed by an optional type (TEXT, INTEGER, REAL, NUMERIC, BLOB). " + Example);
            }

            var name = Unquote(argument[..equals].Trim());
            var rest = argument[(equals + 1)..].Trim();
            if (rest.Length < 2 || rest[0] != '\'')
            {
                throw new ArgumentException($"voron_docs: column '{name}': the path must be a quoted string such as '$.{name}'. " + Example);
            }

            var close = rest.IndexOf('\'', 1);
            if (close < 0)
            {
                throw new ArgumentException($"voron_docs: column '{name}': the path's quote is not closed. " + Example);
            }

            var pathText = rest[1..close];
            var type = rest[(close + 1)..].Trim().ToUpperInvariant();
            if (name.Length == 0 || name.Any(char.IsControl))
            {
                throw new ArgumentException($"voron_docs: column name '{name}' is empty or has control characters. " + Example);
            }

            if (Reserved.Contains(name, StringComparer.OrdinalIgnoreCase))
            {
                throw new ArgumentException($"voron_docs: '{name}' is a built-in column (id, body, version, last_modified); name the path column something else.");
            }

            if (!names.Add(name))
            {
                throw new ArgumentException($"voron_docs: column '{name}' is declared twice.");
            }

            if (!pathText.StartsWith("$.", StringComparison.Ordinal))
            {
                throw new ArgumentException($"voron_docs: column '{name}': path '{pathText}' must start with '$.' (for example '$.{name}').");
            }

            JsonPath path;
            try
            {
                path = JsonPath.Parse(pathText);
            }
            catch (ArgumentException e)
            {
                throw new ArgumentException($"voron_docs: column '{name}': {e.Message}", e);
            }

            if (path.IsMultikey)
            {
                throw new ArgumentException($"voron_docs: column '{name}': path '{pathText}' has '[]'; a column holds one value (declare '$.{path.Text.Replace("[]", "", StringComparison.Ordinal)}' to read the whole array as JSON).");
            }

            var affinity = type switch
            {
                "" => ColumnAffinity.None,
                "TEXT" => ColumnAffinity.Text,
                "INTEGER" or "INT" => ColumnAffinity.Integer,
                "REAL" or "FLOAT" or "DOUBLE" => ColumnAffinity.Real,
                "NUMERIC" => ColumnAffinity.Numeric,
                "BLOB" => ColumnAffinity.None,
                _ => throw new ArgumentException($"voron_docs: column '{name}': unknown type '{type}'; use TEXT, INTEGER, REAL, NUMERIC, BLOB or none."),
            };

            columns.Add(new PathColumn(name, path, type, affinity));
        }

        if (columns.Count > 60)
        {
            throw new ArgumentException($"voron_docs: {columns.Count} path columns; at most 60.");
        }

        return new TableSpec(collection, columns, idHidden, bodyHidden);
    }

    private static string Unquote(string text) =>
        text.Length >= 2 && (text[0] == '\'' || text[0] == '"' || text[0] == '`') && text[^1] == text[0]
            ? text[1..^1].Replace(new string(text[0], 2), new string(text[0], 1), StringComparison.Ordinal)
            : text;
}
