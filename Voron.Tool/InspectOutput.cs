using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Spectre.Console;

namespace Voron.Tool;

/// <summary>
/// Output shared by the read-only commands (info, stat, check, dump): numbers and sizes a person
/// reads at a glance, tables as wide as the data when the output is not a terminal (a pipe must
/// not wrap lines), and JSON written with <see cref="Utf8JsonWriter"/> (no reflection: the tool
/// may be published ahead of time one day).
/// </summary>
internal static class InspectOutput
{
    /// <summary>The console for tables on standard output.</summary>
    public static IAnsiConsole Tables(ToolConsole console)
    {
        var tables = console.OutConsole();
        if (!ReferenceEquals(console.Out, Console.Out) || Console.IsOutputRedirected)
        {
            tables.Profile.Width = 200; // a file or a pipe: no wrapping at 80 columns
        }

        return tables;
    }

    /// <summary>A table with a plain border and the given column headers.</summary>
    public static Table Table(params string[] columns)
    {
        var table = new Table().Border(TableBorder.Simple);
        foreach (var column in columns)
        {
            table.AddColumn(new TableColumn(Markup.Escape(column)));
        }

        return table;
    }

    /// <summary>Adds a row of plain text cells (escaped: store data may contain Spectre markup).</summary>
    public static void Row(Table table, params string[] cells) =>
        table.AddRow([.. cells.Select(cell => (Spectre.Console.Rendering.IRenderable)new Text(cell))]);

    /// <summary>Writes one line of plain text (no markup).</summary>
    public static void Line(IAnsiConsole console, string text = "") => console.Write(new Text(text + "\n"));

    /// <summary>A count with thousands separators: 1,234.</summary>
    public static string Count(long value) => value.ToString("N0", CultureInfo.InvariantCulture);

    /// <summary>A count and a noun, plural unless the count is one: "1 index", "2 indexes".</summary>
    public static string Count(long value, string one, string many) => $"{Count(value)} {(value == 1 ? one : many)}";

    /// <summary>A size: exact bytes under 10 KiB, otherwise KiB/MiB/GiB with one decimal and the exact bytes.</summary>
    public static string Bytes(long bytes)
    {
        if (bytes < 10 * 1024)
        {
            return $"{Count(bytes)} B";
        }

        string[] units = ["KiB", "MiB", "GiB", "TiB"];
        double value = bytes;
        var unit = -1;
        while (value >= 1024 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return string.Create(CultureInfo.InvariantCulture, $"{value:0.0} {units[unit]}");
    }

    /// <summary>A fill ratio (0..1) as a percentage.</summary>
    public static string Percent(double ratio) => string.Create(CultureInfo.InvariantCulture, $"{ratio * 100:0.0}%");

    /// <summary>A moment in UTC, ISO 8601 to the second.</summary>
    public static string Time(DateTimeOffset at) => at.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss'Z'", CultureInfo.InvariantCulture);

    /// <summary>Writes an indented JSON document built by <paramref name="write"/> to <paramref name="output"/>, then a newline.</summary>
    public static void Json(TextWriter output, Action<Utf8JsonWriter> write)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            write(writer);
        }

        output.Write(Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length));
        output.WriteLine();
    }

    /// <summary>
    /// Writes <paramref name="items"/> as a JSON array named <paramref name="name"/>, one object
    /// an item, whose properties <paramref name="writeProperties"/> writes to the same writer.
    /// </summary>
    public static void ObjectArray<T>(Utf8JsonWriter writer, string name, IEnumerable<T> items, Action<T> writeProperties)
    {
        writer.WriteStartArray(name);
        foreach (var item in items)
        {
            writer.WriteStartObject();
            writeProperties(item);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
    }

    /// <summary>The <c>store</c> argument every command takes: the store's directory.</summary>
    public static Argument<string> StoreArgument(string description = "the store's directory") => new("store") { Description = description };

    /// <summary>The <c>--json</c> switch of the commands that print tables or lines by default.</summary>
    public static Option<bool> JsonOption(string description) => new("--json") { Description = description };
}
