using System.Diagnostics;
using System.Security.Cryptography;

namespace Voron.Tests.Sql.Logic;

/// <summary>
/// Runs a parsed sqllogictest script on one connection and reports every record whose outcome
/// differs from the script: values rendered as the format says (integers as %d, reals as %.3f,
/// NULL, "(empty)", unprintable bytes as '@'), sorted by the record's mode, compared one by one
/// or by MD5 over "value\n" when there are more than the hash threshold.
/// </summary>
internal static class SqlLogicRunner
{
    /// <summary>
    /// Runs <paramref name="records"/>; with a <paramref name="conversion"/>, each statement goes
    /// through it first (rewritten, applied by its target, or skipped), and with a
    /// <paramref name="report"/> the counts, skips and every query's plan are recorded.
    /// </summary>
    public static List<string> Run(SqliteConnection connection, IReadOnlyList<SqlLogicRecord> records, string script, SqlLogicConversion? conversion = null, SqlLogicReport? report = null)
    {
        var failures = new List<string>();
        var labels = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var record in records)
        {
            var started = Stopwatch.GetTimestamp();
            try
            {
                switch (record)
                {
                    case SqlLogicStatement statement:
                        var step = conversion?.Convert(statement) ?? SqlLogicStep.Run(statement.Sql);
                        if (step.SkipReason != null)
                        {
                            report?.Skip(step.SkipReason);
                            break;
                        }

                        RunStatement(connection, statement, step, script, failures);
                        if (report != null)
                        {
                            report.Statements++;
                        }

                        break;
                    case SqlLogicQuery query:
                        if (report != null)
                        {
                            report.Queries++;
                            report.Plans.Add((query.Line, Plan(connection, query.Sql)));
                        }

                        RunQuery(connection, query, script, labels, failures);
                        break;
                }
            }
            catch (SqliteException e) when (record is SqlLogicQuery { Expected.Count: 0 })
            {
                _ = e; // a query whose reference run failed (e.g. sum() overflowing) has no results
            }
            catch (SqliteException e)
            {
                failures.Add($"{script}:{record.Line}: {e.Message}\n{record.Sql}");
            }

            if (report != null)
            {
                var elapsed = Stopwatch.GetElapsedTime(started);
                if (record is SqlLogicQuery)
                {
                    report.QueryTime += elapsed;
                    report.QueryTimes.Add((record.Line, elapsed));
                }
                else
                {
                    report.StatementTime += elapsed;
                }
            }

            if (failures.Count >= 10)
            {
                failures.Add($"{script}: stopped after 10 failures");
                break;
            }
        }

        return failures;
    }

    private static void RunStatement(SqliteConnection connection, SqlLogicStatement statement, SqlLogicStep step, string script, List<string> failures)
    {
        string? error;
        try
        {
            if (step.Apply != null)
            {
                error = step.Apply();
            }
            else
            {
                using var command = connection.CreateCommand();
                command.CommandText = step.Sql;
                command.ExecuteNonQuery();
                error = null;
            }
        }
        catch (SqliteException e)
        {
            error = e.Message;
        }

        if (error == null)
        {
            step.AfterSuccess?.Invoke();
            if (statement.ExpectError)
            {
                failures.Add($"{script}:{statement.Line}: the statement succeeded, the script expects an error\n{statement.Sql}");
            }
        }
        else if (!statement.ExpectError)
        {
            failures.Add($"{script}:{statement.Line}: {error}\n{step.Sql ?? statement.Sql}");
        }
    }

    /// <summary>The query's <c>EXPLAIN QUERY PLAN</c>: each row's detail, joined with " | " ("" when it cannot be planned).</summary>
    private static string Plan(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = "EXPLAIN QUERY PLAN " + sql;
        var details = new List<string>();
        try
        {
            using var reader = command.ExecuteReader();
            while (reader.Read())
            {
                details.Add(reader.GetString(reader.FieldCount - 1));
            }
        }
        catch (SqliteException)
        {
            return ""; // the query itself fails; running it reports that
        }

        return string.Join(" | ", details);
    }

    private static void RunQuery(SqliteConnection connection, SqlLogicQuery query, string script, Dictionary<string, string> labels, List<string> failures)
    {
        using var command = connection.CreateCommand();
        command.CommandText = query.Sql;
        var rows = new List<string[]>();
        using (var reader = command.ExecuteReader())
        {
            if (reader.FieldCount != query.Types.Length)
            {
                failures.Add($"{script}:{query.Line}: {reader.FieldCount} columns, the script expects {query.Types.Length}\n{query.Sql}");
                return;
            }

            while (reader.Read())
            {
                var row = new string[reader.FieldCount];
                for (var c = 0; c < row.Length; c++)
                {
                    row[c] = Render(reader, c, query.Types[c]);
                }

                rows.Add(row);
            }
        }

        List<string> values;
        switch (query.Sort)
        {
            case "rowsort":
                rows.Sort(CompareRows);
                values = [.. rows.SelectMany(r => r)];
                break;
            case "valuesort":
                values = [.. rows.SelectMany(r => r)];
                values.Sort(StringComparer.Ordinal);
                break;
            default:
                values = [.. rows.SelectMany(r => r)];
                break;
        }

        var hash = Hash(values);
        if (query.Label != null)
        {
            if (labels.TryGetValue(query.Label, out var earlier) && earlier != hash)
            {
                failures.Add($"{script}:{query.Line}: results differ from the earlier query labelled {query.Label}\n{query.Sql}");
            }

            labels[query.Label] = hash;
        }

        if (query.Expected.Count == 1 && query.Expected[0].Contains(" values hashing to ", StringComparison.Ordinal))
        {
            var expected = query.Expected[0];
            var actual = $"{values.Count} values hashing to {hash}";
            if (expected != actual)
            {
                failures.Add($"{script}:{query.Line}: got {actual}, the script expects {expected}\n{query.Sql}");
            }
        }
        else if (query.HashThreshold > 0 && values.Count > query.HashThreshold && query.Expected.Count == 0)
        {
            failures.Add($"{script}:{query.Line}: {values.Count} values and no expected result\n{query.Sql}");
        }
        else if (!values.SequenceEqual(query.Expected, StringComparer.Ordinal))
        {
            failures.Add($"{script}:{query.Line}: got [{string.Join(", ", values)}], the script expects [{string.Join(", ", query.Expected)}]\n{query.Sql}");
        }
    }

    private static string Render(SqliteDataReader reader, int column, char type)
    {
        if (reader.IsDBNull(column))
        {
            return "NULL";
        }

        switch (type)
        {
            case 'I':
                return reader.GetInt64(column).ToString(CultureInfo.InvariantCulture); // sqlite3_column_int64
            case 'R':
                return FormatReal(reader.GetDouble(column)); // sqlite3_column_double
            default:
                var bytes = Encoding.UTF8.GetBytes(reader.GetString(column));
                if (bytes.Length == 0)
                {
                    return "(empty)";
                }

                var text = new StringBuilder(bytes.Length);
                foreach (var b in bytes)
                {
                    text.Append(b is < (byte)' ' or > (byte)'~' ? '@' : (char)b);
                }

                return text.ToString();
        }
    }

    /// <summary>
    /// "%.3f" as SQLite's own printf renders it, which the scripts' results come from: at most 16
    /// significant digits, the rest zeros (sqlite3FpDecode's limit), so 2^63 prints as
    /// 9223372036854776000.000.
    /// </summary>
    private static string FormatReal(double value)
    {
        var magnitude = Math.Abs(value);
        var integerDigits = magnitude < 1 ? 1 : (int)Math.Floor(Math.Log10(magnitude)) + 1;
        if (integerDigits + 3 <= 16 || double.IsInfinity(value) || double.IsNaN(value))
        {
            return value.ToString("F3", CultureInfo.InvariantCulture);
        }

        var scientific = magnitude.ToString("E15", CultureInfo.InvariantCulture); // d.ddddddddddddddd E+xxx
        var digits = scientific[..17].Replace(".", "", StringComparison.Ordinal);
        var exponent = int.Parse(scientific[18..], CultureInfo.InvariantCulture);
        var wholeDigits = exponent + 1;
        var whole = wholeDigits >= digits.Length ? digits + new string('0', wholeDigits - digits.Length) : digits[..wholeDigits];
        var fraction = wholeDigits >= digits.Length ? "" : digits[wholeDigits..];
        return (value < 0 ? "-" : "") + whole + "." + (fraction + "000")[..3];
    }

    private static int CompareRows(string[] a, string[] b)
    {
        for (var i = 0; i < a.Length; i++)
        {
            var c = string.CompareOrdinal(a[i], b[i]);
            if (c != 0)
            {
                return c;
            }
        }

        return 0;
    }

    private static string Hash(List<string> values)
    {
        var text = new StringBuilder();
        foreach (var value in values)
        {
            text.Append(value).Append('\n');
        }

#pragma warning disable CA5351 // MD5 is the format's own result digest, not a security measure
        return Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(text.ToString())));
#pragma warning restore CA5351
    }
}
