using System.Text.RegularExpressions;

namespace Voron.Tests.Sql.Logic;

/// <summary>
/// A script's <c>CREATE TABLE name(column type [PRIMARY KEY | UNIQUE], ..., [PRIMARY KEY(...) | UNIQUE(...)])</c>,
/// as far as the voron_docs conversion needs it: the columns with the affinity SQLite would give
/// their declared type, and the column sets a PRIMARY KEY or UNIQUE constraint keeps unique.
/// Anything else (NOT NULL, DEFAULT, CHECK, REFERENCES, COLLATE) has no voron_docs counterpart:
/// <see cref="TryParse"/> throws <see cref="NotSupportedException"/> so a script that needs one
/// fails loudly rather than running something weaker.
/// </summary>
internal sealed partial record SqlLogicTable(string Name, IReadOnlyList<SqlLogicColumn> Columns, IReadOnlyList<SqlLogicUniqueKey> UniqueKeys)
{
    private static readonly string[] s_constraintWords = ["PRIMARY", "UNIQUE", "NOT", "NULL", "DEFAULT", "CHECK", "REFERENCES", "COLLATE", "CONSTRAINT", "GENERATED", "AS"];

    /// <summary>The table, or false when <paramref name="sql"/> is not a plain <c>CREATE TABLE name(...)</c>.</summary>
    public static bool TryParse(string sql, out SqlLogicTable table)
    {
        table = null!;
        var match = CreateTable().Match(sql);
        if (!match.Success)
        {
            return false;
        }

        var name = match.Groups["name"].Value;
        var columns = new List<SqlLogicColumn>();
        var unique = new List<SqlLogicUniqueKey>();
        foreach (var part in SplitTopLevel(match.Groups["body"].Value))
        {
            var words = part.Split((char[])[' ', '\t', '\n', '\r'], StringSplitOptions.RemoveEmptyEntries);
            var first = new string([.. words[0].TakeWhile(char.IsAsciiLetterOrDigit)]).ToUpperInvariant(); // "CHECK(x" -> CHECK
            if (first is "PRIMARY" or "UNIQUE")
            {
                var list = part[(part.IndexOf('(', StringComparison.Ordinal) + 1)..part.LastIndexOf(')')];
                var keyColumns = list.Split(',').Select(c => c.Trim()).ToArray();
                unique.Add(new SqlLogicUniqueKey(first == "PRIMARY", keyColumns));
                continue;
            }

            if (first is "CHECK" or "FOREIGN" or "CONSTRAINT")
            {
                throw new NotSupportedException($"CREATE TABLE {name}: the table constraint '{part.Trim()}' has no voron_docs counterpart");
            }

            var typeWords = words.Skip(1).TakeWhile(w => !s_constraintWords.Contains(w.ToUpperInvariant(), StringComparer.Ordinal)).ToArray();
            var constraint = string.Join(' ', words.Skip(1 + typeWords.Length)).ToUpperInvariant();
            switch (constraint)
            {
                case "":
                    break;
                case "PRIMARY KEY":
                    unique.Add(new SqlLogicUniqueKey(true, [words[0]]));
                    break;
                case "UNIQUE":
                    unique.Add(new SqlLogicUniqueKey(false, [words[0]]));
                    break;
                default:
                    throw new NotSupportedException($"CREATE TABLE {name}: the column constraint '{constraint}' of {words[0]} has no voron_docs counterpart");
            }

            columns.Add(new SqlLogicColumn(words[0], Affinity(string.Join(' ', typeWords))));
        }

        table = new SqlLogicTable(name, columns, unique);
        return true;
    }

    /// <summary>
    /// The affinity SQLite gives a declared type (its documented rules, in their order): INT ->
    /// INTEGER; CHAR, CLOB or TEXT -> TEXT; BLOB or no type -> BLOB ("" for no type); REAL, FLOA
    /// or DOUB -> REAL; anything else NUMERIC.
    /// </summary>
    public static string Affinity(string declaredType)
    {
        var type = declaredType.ToUpperInvariant();
        if (type.Contains("INT", StringComparison.Ordinal))
        {
            return "INTEGER";
        }

        if (type.Contains("CHAR", StringComparison.Ordinal) || type.Contains("CLOB", StringComparison.Ordinal) || type.Contains("TEXT", StringComparison.Ordinal))
        {
            return "TEXT";
        }

        if (type.Length == 0)
        {
            return "";
        }

        if (type.Contains("BLOB", StringComparison.Ordinal))
        {
            return "BLOB";
        }

        return type.Contains("REAL", StringComparison.Ordinal) || type.Contains("FLOA", StringComparison.Ordinal) || type.Contains("DOUB", StringComparison.Ordinal)
            ? "REAL"
            : "NUMERIC";
    }

    /// <summary>The column list split at commas outside parentheses (so VARCHAR(30) or DECIMAL(10,2) stays whole).</summary>
    private static List<string> SplitTopLevel(string body)
    {
        var parts = new List<string>();
        var depth = 0;
        var start = 0;
        for (var i = 0; i < body.Length; i++)
        {
            switch (body[i])
            {
                case '(':
                    depth++;
                    break;
                case ')':
                    depth--;
                    break;
                case ',' when depth == 0:
                    parts.Add(body[start..i]);
                    start = i + 1;
                    break;
            }
        }

        parts.Add(body[start..]);
        return [.. parts.Where(p => p.Trim().Length != 0)];
    }

    [GeneratedRegex(@"^\s*CREATE\s+TABLE\s+(?<name>\w+)\s*\((?<body>.*)\)\s*;?\s*$", RegexOptions.IgnoreCase | RegexOptions.Singleline | RegexOptions.CultureInvariant)]
    private static partial Regex CreateTable();
}
