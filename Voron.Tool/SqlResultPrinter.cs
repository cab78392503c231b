using System.Globalization;
using System.Text;
using System.Text.Json;
using Microsoft.Data.Sqlite;
using Spectre.Console;

namespace Voron.Tool;

/// <summary>
/// How <c>voron sql</c> prints a result: a table (column names, rows; NULL as <c>NULL</c>, blobs
/// as <c>x'..'</c> hex as SQL writes them), or with <c>--json</c> one line per result: a JSON array
/// of objects (column -> value; NULL as null, blobs as hex strings) for a query, <c>{"changes": N}</c>
/// for a statement that returns no rows.
/// </summary>
internal sealed class SqlResultPrinter(ToolConsole console, bool json)
{
    public async Task PrintRowsAsync(SqliteDataReader reader, CancellationToken cancellationToken)
    {
        var names = Enumerable.Range(0, reader.FieldCount).Select(reader.GetName).ToArray();
        if (json)
        {
            await console.Out.WriteLineAsync(await RowsAsJsonAsync(reader, names, cancellationToken).ConfigureAwait(false)).ConfigureAwait(false);
            return;
        }

        var table = new Table().Border(TableBorder.Rounded);
        foreach (var name in names)
        {
            table.AddColumn(new TableColumn(new Text(name)));
        }

        var rows = 0;
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var cells = new Spectre.Console.Rendering.IRenderable[names.Length];
            for (var i = 0; i < names.Length; i++)
            {
                cells[i] = new Text(AsText(reader.GetValue(i)));
            }

            table.AddRow(cells);
            rows++;
        }

        console.OutConsole().Write(table);
        await console.Out.WriteLineAsync(rows == 1 ? "1 row" : $"{rows} rows").ConfigureAwait(false);
    }

    public Task PrintChangesAsync(long changes) =>
        console.Out.WriteLineAsync(json ? $"{{\"changes\":{changes}}}" : changes == 1 ? "1 row changed" : $"{changes} rows changed");

    /// <summary>A value as the table shows it.</summary>
    internal static string AsText(object value) => value switch
    {
        DBNull => "NULL",
        byte[] bytes => "x'" + Convert.ToHexString(bytes) + "'",
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? "NULL",
    };

    private static async Task<string> RowsAsJsonAsync(SqliteDataReader reader, string[] names, CancellationToken cancellationToken)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                writer.WriteStartObject();
                for (var i = 0; i < names.Length; i++)
                {
                    writer.WritePropertyName(names[i]);
                    switch (reader.GetValue(i))
                    {
                        case DBNull:
                            writer.WriteNullValue();
                            break;
                        case long l:
                            writer.WriteNumberValue(l);
                            break;
                        case double d when double.IsFinite(d):
                            writer.WriteNumberValue(d);
                            break;
                        case byte[] bytes:
                            writer.WriteStringValue(Convert.ToHexString(bytes));
                            break;
                        case var other:
                            writer.WriteStringValue(AsText(other));
                            break;
                    }
                }

                writer.WriteEndObject();
            }

            writer.WriteEndArray();
        }

        return Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length);
    }
}
