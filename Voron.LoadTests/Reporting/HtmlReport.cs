using System.Xml.Linq;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// A report as one self-contained HTML5 page (<c>reports/&lt;experiment&gt;.html</c>): inline CSS,
/// every chart an inline <c>&lt;svg&gt;</c>, no script, no external URL, no fetched font, so it
/// opens offline and can be mailed as one file. Sections, in order: the title; the tables the
/// experiment named to lead (<see cref="Report.ShowGroupsFirst"/>: its summary with ratios); the
/// notes; when the experiment kept scenario runs (<see cref="Report.Scenarios"/>), the charts and
/// the per-step table of <see cref="ScenarioSection"/>; the report's other tables (grouped as the
/// Markdown is); the facts (the run and machine, each engine's durability, flush latency). Every chart is a <c>&lt;figure id&gt;</c> with a
/// <c>&lt;figcaption&gt;</c>, every table has a <c>&lt;caption&gt;</c> and an id.
/// <para>
/// The page is built as an <see cref="XElement"/> tree, so it is well-formed XML after its doctype
/// and every text and attribute is escaped by the writer (the HtmlEncode of this page). Two HTML
/// rules the tree keeps: a non-void element always has content (<see cref="E"/>: an HTML parser
/// reads <c>&lt;td/&gt;</c> as an open tag), and the CSS has no '&lt;', '&gt;' or '&amp;' (the writer
/// would escape them, and a style element's text is not unescaped by HTML).
/// </para>
/// </summary>
internal static partial class HtmlReport
{
    private const string Css = """
        body { font-family: Arial, Helvetica, 'Liberation Sans', sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px; color: #222; }
        h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
        table { border-collapse: collapse; margin: 1em 0 1.5em; font-size: 0.9em; }
        caption { text-align: left; font-weight: bold; padding: 4px 0; }
        th, td { border: 1px solid #ccc; padding: 3px 8px; vertical-align: top; }
        th { background: #f3f3f3; text-align: left; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        figure { margin: 1.5em 0; } figcaption { font-size: 0.9em; color: #444; margin-top: 4px; }
        svg { max-width: 100%; height: auto; display: block; }
        .swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 6px; }
        p.note { white-space: pre-wrap; }
        """;

    /// <summary>The page for <paramref name="report"/>.</summary>
    public static string Render(Report report)
    {
        var ids = new Ids();
        // What a reader came for first (the tables, the summary first where the experiment asks,
        // and what the notes conclude), then the charts, then the facts behind them.
        var body = E("body", E("h1", report.Title));
        var leading = report.Tables(leadingFirst: true).Where(t => report.LeadsPage(t.Group)).ToList();
        if (leading.Count > 0)
        {
            body.Add(Results(report, leading, "Summary", ids));
        }

        if (report.Notes.Count > 0)
        {
            body.Add(E("section", new XAttribute("id", ids.Next("notes")), E("h2", "Notes"), report.Notes.Select(n => E("p", new XAttribute("class", "note"), n))));
        }

        if (report.Scenarios.Count > 0)
        {
            body.Add(ScenarioSection(report.Scenarios, ids));
        }

        body.Add(Results(report, [.. report.Tables().Where(t => !report.LeadsPage(t.Group))], "Results", ids));
        body.Add(Facts(report, ids));

        var html = E("html", new XAttribute("lang", "en"),
            E("head", new XElement("meta", new XAttribute("charset", "utf-8")),
                new XElement("meta", new XAttribute("name", "viewport"), new XAttribute("content", "width=device-width, initial-scale=1")),
                E("title", report.Title), E("style", Css)),
            body);
        return "<!DOCTYPE html>\n" + html.ToString() + "\n";
    }

    private static XElement Facts(Report report, Ids ids)
    {
        static bool IsDurability(string name) => name.Contains("durability", StringComparison.OrdinalIgnoreCase);
        static bool IsFlush(string name) => name.Contains("fdatasync", StringComparison.OrdinalIgnoreCase) || name.Contains("fsync", StringComparison.OrdinalIgnoreCase);
        var section = E("section", new XAttribute("id", ids.Next("facts")), E("h2", "Facts"));
        var groups = new (string Id, string Caption, Func<string, bool> Holds)[]
        {
            ("facts-run", "The run and the machine", n => !IsDurability(n) && !IsFlush(n)),
            ("facts-durability", "Durability of each engine", IsDurability),
            ("facts-flush", "Flush latency (fdatasync, fsync)", n => !IsDurability(n) && IsFlush(n)),
        };
        foreach (var (id, caption, holds) in groups)
        {
            var facts = report.Facts.Where(f => holds(f.Key)).ToList();
            if (facts.Count > 0)
            {
                section.Add(Table(ids.Next(id), caption, ["fact", "value"], facts.Select(f => new object?[] { f.Key, f.Value })));
            }
        }

        return section;
    }

    private static XElement Results(Report report, IReadOnlyList<(string? Group, IReadOnlyList<string> Columns, IReadOnlyList<Dictionary<string, object?>> Rows)> tables, string title, Ids ids)
    {
        var section = E("section", new XAttribute("id", ids.Next(title.ToLowerInvariant())), E("h2", title));
        foreach (var (group, columns, rows) in tables)
        {
            var caption = group == null ? report.Title : $"{report.GroupColumn}: {group}";
            var id = ids.Next("table-" + (group ?? "results"));
            section.Add(Table(id, caption, columns, rows.Select(r => columns.Select(c => r.GetValueOrDefault(c)).ToArray())));
        }

        return section;
    }

    /// <summary>A table with a caption; numbers are formatted as the Markdown formats them and aligned right.</summary>
    internal static XElement Table(string id, string caption, IReadOnlyList<string> columns, IEnumerable<object?[]> rows) =>
        E("table", new XAttribute("id", id),
            E("caption", caption),
            E("thead", E("tr", columns.Select(c => E("th", c)))),
            E("tbody", rows.Select(row => E("tr", row.Select(Cell)))));

    private static XElement Cell(object? value) =>
        value is double or float or int or long or decimal
            ? E("td", new XAttribute("class", "num"), Report.Format(value))
            : E("td", Report.Format(value));

    /// <summary>An HTML element; with no content it gets an empty text, so it is written open and closed, never as <c>&lt;x/&gt;</c>.</summary>
    internal static XElement E(string name, params object?[] content)
    {
        var element = new XElement(name, content);
        if (element.IsEmpty)
        {
            element.Add(string.Empty);
        }

        return element;
    }

    /// <summary>Ids unique in the page, readable: the slug of a name, "-2", "-3" on a clash.</summary>
    internal sealed class Ids
    {
        private readonly HashSet<string> _used = new(StringComparer.Ordinal);

        public string Next(string name)
        {
            var slug = SvgChart.Slug(name);
            var id = slug;
            for (var n = 2; !_used.Add(id); n++)
            {
                id = $"{slug}-{n}";
            }

            return id;
        }
    }
}
