using System.Diagnostics;
using System.Xml.Linq;
using Voron.LoadTests.Reporting;

namespace Voron.LoadTests.Tests;

public sealed class HtmlReportTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    [Fact]
    public void Render_is_well_formed_and_holds_every_chart_and_table_of_a_report_with_scenarios()
    {
        var html = HtmlReport.Render(ReportSamples.Compare());

        var page = Parse(html);
        var figures = page.Descendants("figure").ToList();
        string[] charts =
        [
            "closed-1-throughput", "closed-1-p99", "closed-1-steps", "closed-16-throughput", "closed-16-p99", "closed-16-steps",
            "open-100-s-steps", "offered-throughput", "offered-p99",
        ];
        Assert.Equal(charts, figures.Select(f => f.Attribute("id")?.Value));
        Assert.All(figures, f =>
        {
            Assert.Single(f.Elements(SvgChart.Svg + "svg"));
            Assert.False(string.IsNullOrWhiteSpace(f.Element("figcaption")?.Value));
        });
        var tables = page.Descendants("table").ToList();
        // The charts and the step table, then the results, then the facts behind them (no summary named here).
        Assert.Equal(["steps-table", "table-closed-1", "table-closed-16", "facts-run", "facts-durability", "facts-flush"], tables.Select(t => t.Attribute("id")?.Value));
        Assert.All(tables, t => Assert.False(string.IsNullOrWhiteSpace(t.Element("caption")?.Value)));
        Assert.Contains("vsSqlite", tables[1].Element("thead")!.Value, StringComparison.Ordinal); // the summary's ratio column
        Assert.Contains("0.42", tables[5].Value, StringComparison.Ordinal);
        Assert.Contains("round 1's run", figures[0].Element("figcaption")!.Value, StringComparison.Ordinal);
        Assert.Contains("p99 limit 10 ms", figures[^1].Value, StringComparison.Ordinal);

        // 2 engines x 2 closed loads x 2 rounds + 6 open runs, each an "all" row and 2 steps.
        Assert.Equal((8 + 6) * 3, tables[0].Element("tbody")!.Elements("tr").Count());
    }

    [Fact]
    public void A_summary_added_last_leads_the_page_and_stays_last_in_the_markdown()
    {
        var report = new Report("summary-first", "Summary first");
        report.GroupMarkdownBy("table");
        report.ShowGroupsFirst("summary");
        report.AddRow(("table", "details"), ("engine", "a"), ("ops/s", 1.0));
        report.AddRow(("table", "summary"), ("engine", "a"), ("ratio", 2.0));
        report.AddNote("A note.");

        var page = Parse(HtmlReport.Render(report));
        var markdown = report.ToMarkdown();

        Assert.Equal(["table-summary", "table-details"], page.Descendants("table").Select(t => t.Attribute("id")?.Value).Where(id => id!.StartsWith("table-", StringComparison.Ordinal)));
        Assert.Equal(["summary", "notes", "results", "facts"], page.Descendants("section").Select(t => t.Attribute("id")?.Value).Where(id => !id!.StartsWith("facts-", StringComparison.Ordinal)).Take(4));
        Assert.True(markdown.IndexOf("## table: details", StringComparison.Ordinal) < markdown.IndexOf("## table: summary", StringComparison.Ordinal));
    }

    [Fact]
    public void A_grouped_table_has_no_column_that_repeats_its_heading()
    {
        var report = new Report("grouped", "Grouped");
        report.GroupMarkdownBy("table");
        report.AddRow(("table", "summary"), ("engine", "a"), ("ratio", 2.0));
        report.AddRow(("table", "summary"), ("engine", "b"), ("ratio", 0.5));

        var markdown = report.ToMarkdown();
        var page = Parse(HtmlReport.Render(report));

        Assert.Contains("## table: summary\n\n| engine | ratio |\n", markdown, StringComparison.Ordinal);
        var table = page.Descendants("table").Single(t => t.Attribute("id")?.Value == "table-summary");
        Assert.Equal(["engine", "ratio"], table.Descendants("th").Select(th => th.Value));
        Assert.Contains("\"table\": \"summary\"", report.ToJson(), StringComparison.Ordinal); // the JSON rows keep it
    }

    [Fact]
    public void Render_escapes_every_text_and_names_no_url_but_the_svg_namespace()
    {
        var html = HtmlReport.Render(ReportSamples.Compare());

        Assert.DoesNotContain(ReportSamples.Odd, html, StringComparison.Ordinal);
        Assert.Contains("a&lt;b&amp;c", html, StringComparison.Ordinal);
        Assert.Contains("Two paths &lt;compared&gt; &amp; more", html, StringComparison.Ordinal);
        Assert.Contains(ReportSamples.Odd, Parse(html).Descendants("td").Select(td => td.Value));
        Assert.Equal(["http://www.w3.org/2000/svg"], SvgChartTests.Urls(html));
        Assert.DoesNotContain("<script", html, StringComparison.OrdinalIgnoreCase);
        // An HTML parser reads <td/> as an open tag: non-void HTML elements are never self-closed.
        Assert.DoesNotMatch("<(td|th|tr|p|span|div|section|figure|figcaption|caption|table|tbody|thead|title|style)\\b[^>]*/>", html);
    }

    [Fact]
    public void Render_without_scenarios_is_the_facts_and_tables()
    {
        var report = new Report("machine", "Machine");
        report.AddRow(("measure", "write+fdatasync"), ("medianMs", 1.5));

        var page = Parse(HtmlReport.Render(report));

        Assert.Empty(page.Descendants("figure"));
        Assert.Equal(["table-results", "facts-run"], page.Descendants("table").Select(t => t.Attribute("id")?.Value));
        Assert.Contains("write+fdatasync", page.Descendants("td").Select(td => td.Value));
    }

    [Fact]
    public void Save_writes_json_markdown_html_and_a_csv_per_engine_and_load()
    {
        var report = ReportSamples.Compare();

        var saved = report.Save(_directory.Path);

        Assert.All(new[] { saved.Json, saved.Markdown, saved.Html }, path => Assert.True(File.Exists(path), path));
        Assert.Equal(Path.Combine(_directory.Path, "compare.html"), saved.Html);
        Assert.Equal(2 * (2 + 3), saved.Csv.Count);
        var csv = Path.Combine(_directory.Path, "compare", "voron-documents-closed-1.csv");
        Assert.Contains(csv, saved.Csv);
        Assert.Contains(Path.Combine(_directory.Path, "compare", "a-b-c-open-100-s.csv"), saved.Csv);
        var lines = File.ReadAllLines(csv);
        Assert.Equal(ScenarioCsv.Header, lines[0]);
        Assert.Equal(1 + (2 * (1 + ReportSamples.Steps.Length)), lines.Length); // 2 rounds, each an "all" row and its steps
        Assert.StartsWith("1,all,15001,15000,1,5000,", lines[1], StringComparison.Ordinal);
        Assert.StartsWith("2,create-order,", lines[^2], StringComparison.Ordinal);
        Assert.All(lines, l => Assert.Equal(15, l.Split(',').Length));

        using var json = System.Text.Json.JsonDocument.Parse(File.ReadAllText(saved.Json));
        var scenarios = json.RootElement.GetProperty("scenarios").EnumerateArray().ToList();
        Assert.Equal(report.Scenarios.Count, scenarios.Count);
        Assert.Equal(15000, scenarios[0].GetProperty("ok").GetInt64());
        Assert.False(scenarios[0].TryGetProperty("timeline", out _));
    }

    /// <summary>
    /// Renders the page headless with Chromium to a PNG and checks that it is not blank: it decodes
    /// the PNG (zlib, then the row filters) and asks for more than a few colours and for at least 2%
    /// of the pixels not white. Skipped, with the reason, where chromium is not on PATH.
    /// </summary>
    [ChromiumFact]
    public async Task Chromium_renders_the_page_to_a_screenshot_that_is_not_blank()
    {
        var chromium = ChromiumFactAttribute.Path!;
        var page = ReportSamples.Compare().Save(_directory.Path).Html;
        var png = _directory.Combine("page.png");
        var start = new ProcessStartInfo(chromium)
        {
            ArgumentList = { "--headless", "--no-sandbox", "--disable-gpu", $"--screenshot={png}", "--window-size=1280,2000", new Uri(page).AbsoluteUri },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using var process = Process.Start(start)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        Assert.True(File.Exists(png), $"chromium exited with {process.ExitCode} and no screenshot: {await output}{await error}");

        var (width, height, pixels) = PngPixels.Decode(await File.ReadAllBytesAsync(png));

        Assert.Equal((1280, 2000), (width, height));
        var colors = pixels.Distinct().Count();
        var notWhite = pixels.Count(p => p != 0xFFFFFF);
        Assert.True(colors > 8 && notWhite > pixels.Length / 50, $"{colors} colours, {notWhite} of {pixels.Length} pixels not white: the page rendered blank");
    }

    private static XDocument Parse(string html)
    {
        const string Doctype = "<!DOCTYPE html>\n";
        Assert.StartsWith(Doctype, html, StringComparison.Ordinal);
        return XDocument.Parse(html[Doctype.Length..]);
    }

    public void Dispose() => _directory.Dispose();
}
