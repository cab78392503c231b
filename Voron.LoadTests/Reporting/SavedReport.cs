namespace Voron.LoadTests.Reporting;

/// <summary>The files <see cref="Report.Save"/> wrote: the JSON, the Markdown, the HTML page, and a CSV per engine and load (none without scenario runs).</summary>
internal sealed record SavedReport(string Json, string Markdown, string Html, IReadOnlyList<string> Csv);
