namespace Voron.Tests.Sql.Logic;

/// <summary>
/// Reads a sqllogictest script (format: the upstream project's "about" page; scripts in Data/):
/// records separated by blank lines, <c>#</c> comments, <c>hash-threshold N</c>, <c>halt</c>, and
/// <c>skipif</c>/<c>onlyif</c> conditions naming a database engine — this runner is "sqlite".
/// </summary>
internal static class SqlLogicScript
{
    private const string Engine = "sqlite";

    public static List<SqlLogicRecord> Parse(string path)
    {
        var lines = File.ReadAllLines(path);
        var records = new List<SqlLogicRecord>();
        var hashThreshold = 0;
        var skip = false;
        var i = 0;
        while (i < lines.Length)
        {
            var line = lines[i].Trim();
            if (line.Length == 0 || line.StartsWith('#'))
            {
                i++;
                continue;
            }

            var words = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            switch (words[0])
            {
                case "skipif":
                    skip |= words[1] == Engine;
                    i++;
                    continue;
                case "onlyif":
                    skip |= words[1] != Engine;
                    i++;
                    continue;
                case "hash-threshold":
                    hashThreshold = int.Parse(words[1], System.Globalization.CultureInfo.InvariantCulture);
                    i++;
                    continue;
                case "halt":
                    if (!skip)
                    {
                        return records;
                    }

                    skip = false;
                    i++;
                    continue;
                case "statement":
                {
                    var start = i + 1;
                    var sql = ReadUntil(lines, ref i, stopAtSeparator: false);
                    if (!skip)
                    {
                        records.Add(new SqlLogicStatement(start, sql, words[1] == "error"));
                    }

                    break;
                }

                case "query":
                {
                    var start = i + 1;
                    var sql = ReadUntil(lines, ref i, stopAtSeparator: true);
                    var expected = new List<string>();
                    if (i < lines.Length && lines[i].Trim() == "----")
                    {
                        for (i++; i < lines.Length && lines[i].Trim().Length != 0; i++)
                        {
                            expected.Add(lines[i].Trim());
                        }
                    }

                    if (!skip)
                    {
                        records.Add(new SqlLogicQuery(start, sql, words[1], words.Length > 2 ? words[2] : "nosort", words.Length > 3 ? words[3] : null, expected, hashThreshold));
                    }

                    break;
                }

                default:
                    throw new FormatException($"{path}:{i + 1}: unknown record '{line}'");
            }

            skip = false;
        }

        return records;
    }

    /// <summary>The SQL after the record's first line: up to a blank line (or, for a query, "----").</summary>
    private static string ReadUntil(string[] lines, ref int i, bool stopAtSeparator)
    {
        var sql = new List<string>();
        for (i++; i < lines.Length; i++)
        {
            var trimmed = lines[i].Trim();
            if (trimmed.Length == 0 || (stopAtSeparator && trimmed == "----"))
            {
                break;
            }

            sql.Add(lines[i]);
        }

        return string.Join("\n", sql);
    }
}
