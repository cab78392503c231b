using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// An experiment's result: a title, facts about the run (machine, durability mode, flush
/// latency), a table of rows, and the scenario runs kept whole. Saved as
/// <c>reports/&lt;name&gt;.json</c> (rows as objects keyed by column name, for tools),
/// <c>reports/&lt;name&gt;.md</c> (for people), <c>reports/&lt;name&gt;.html</c> (the same with
/// charts, <see cref="HtmlReport"/>) and a CSV per scenario (<see cref="ScenarioCsv"/>).
/// </summary>
internal sealed class Report
{
    private readonly List<string> _columns = [];
    private readonly List<Dictionary<string, object?>> _rows = [];
    private readonly List<KeyValuePair<string, object?>> _facts = [];
    private readonly List<string> _notes = [];
    private readonly List<ScenarioRun> _scenarios = [];
    private readonly List<string> _firstGroups = [];
    private string? _groupColumn;

    public Report(string experiment, string title)
    {
        Experiment = experiment;
        Title = title;
        AddFact("experiment", experiment);
        AddFact("startedUtc", DateTime.UtcNow.ToString("u", CultureInfo.InvariantCulture));
        AddFact("machine", $"{Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
    }

    public string Experiment { get; }

    public string Title { get; }

    public IReadOnlyList<Dictionary<string, object?>> Rows => _rows;

    /// <summary>The columns, in the order they were first seen.</summary>
    public IReadOnlyList<string> Columns => _columns;

    /// <summary>The facts, in the order they were added (a fact added again keeps its new place).</summary>
    public IReadOnlyList<KeyValuePair<string, object?>> Facts => _facts;

    public IReadOnlyList<string> Notes => _notes;

    public void AddFact(string name, object? value)
    {
        _facts.RemoveAll(f => f.Key == name);
        _facts.Add(new(name, value));
    }

    public void AddNote(string note) => _notes.Add(note);

    /// <summary>The scenario runs kept whole (<see cref="AddScenario"/>), in the order they ran.</summary>
    public IReadOnlyList<ScenarioRun> Scenarios => _scenarios;

    /// <summary>Keeps a scenario run's whole results (steps, status codes, timeline) beside the rows, for charts and CSV files.</summary>
    public void AddScenario(string engine, string load, int round, Load.ScenarioStats stats) => _scenarios.Add(new(engine, load, round, stats));

    /// <summary>
    /// Prints the Markdown as one table per value of <paramref name="column"/> (in order of first
    /// appearance), each with only the columns its rows use: for reports whose rows are of
    /// different kinds (closed- and open-loop rows). The JSON keeps one list of rows.
    /// </summary>
    public void GroupMarkdownBy(string column) => _groupColumn = column;

    /// <summary>Adds a row; columns appear in the order they are first seen.</summary>
    public void AddRow(params (string Column, object? Value)[] cells)
    {
        var row = new Dictionary<string, object?>();
        foreach (var (column, value) in cells)
        {
            if (!_columns.Contains(column))
            {
                _columns.Add(column);
            }

            row[column] = value;
        }

        _rows.Add(row);
    }

    /// <summary>
    /// Writes <c>&lt;experiment&gt;.json</c>, <c>.md</c> and <c>.html</c> into <paramref name="directory"/>,
    /// and, when there are scenario runs, a CSV per engine and load into <c>&lt;experiment&gt;/</c> beside them.
    /// </summary>
    public SavedReport Save(string directory)
    {
        Directory.CreateDirectory(directory);
        var json = Path.Combine(directory, Experiment + ".json");
        var markdown = Path.Combine(directory, Experiment + ".md");
        var html = Path.Combine(directory, Experiment + ".html");
        File.WriteAllText(json, ToJson());
        File.WriteAllText(markdown, ToMarkdown());
        File.WriteAllText(html, HtmlReport.Render(this));
        var csv = _scenarios.Count == 0 ? [] : ScenarioCsv.WriteAll(Path.Combine(directory, Experiment), _scenarios);
        return new SavedReport(json, markdown, html, csv);
    }

    /// <summary>
    /// The tables the Markdown and the HTML show: one (title null) with every column, or with
    /// <see cref="GroupMarkdownBy"/> one per value of that column (in order of first appearance),
    /// each with only the columns its rows use, and not the group column itself: the table's
    /// heading names its value, so a column of that one value would only repeat it.
    /// </summary>
    internal IReadOnlyList<(string? Group, IReadOnlyList<string> Columns, IReadOnlyList<Dictionary<string, object?>> Rows)> Tables(bool leadingFirst = false)
    {
        if (_groupColumn == null)
        {
            return [(null, _columns, _rows)];
        }

        return _rows.GroupBy(r => Format(r.GetValueOrDefault(_groupColumn)))
            .OrderBy(g => leadingFirst && _firstGroups.IndexOf(g.Key) is var at && at >= 0 ? at : _firstGroups.Count) // stable: the others keep their order
            .Select(g => ((string?)g.Key, (IReadOnlyList<string>)_columns.Where(c => c != _groupColumn && g.Any(r => r.GetValueOrDefault(c) != null)).ToList(), (IReadOnlyList<Dictionary<string, object?>>)g.ToList()))
            .ToList();
    }

    /// <summary>Puts the tables of these values of the group column at the top of the HTML page, before the charts, in this order (a summary added last, shown first there; the Markdown, printed to the terminal, keeps it last, beside the prompt).</summary>
    public void ShowGroupsFirst(params string[] groups) => _firstGroups.AddRange(groups);

    /// <summary>Whether <paramref name="group"/> is one <see cref="ShowGroupsFirst"/> named.</summary>
    internal bool LeadsPage(string? group) => group != null && _firstGroups.Contains(group);

    /// <summary>The column the tables are grouped by (<see cref="GroupMarkdownBy"/>), or null.</summary>
    public string? GroupColumn => _groupColumn;

    public string ToJson()
    {
        var root = new JsonObject();
        foreach (var (name, value) in _facts)
        {
            root[name] = JsonValue(value);
        }

        var rows = new JsonArray();
        foreach (var row in _rows)
        {
            var item = new JsonObject();
            foreach (var (column, value) in row)
            {
                item[column] = JsonValue(value);
            }

            rows.Add(item);
        }

        root["rows"] = rows;
        root["notes"] = new JsonArray([.. _notes.Select(n => (JsonNode?)n)]);
        if (_scenarios.Count > 0)
        {
            // Compact: the figures a tool compares; steps and timelines are in the CSV files and the HTML.
            root["scenarios"] = new JsonArray([.. _scenarios.Select(s => (JsonNode?)new JsonObject
            {
                ["engine"] = s.Engine,
                ["load"] = s.Load,
                ["round"] = s.Round,
                ["ok"] = s.Stats.AllOkCount,
                ["fail"] = s.Stats.AllFailCount,
                ["rps"] = JsonValue(s.Stats.Ok.Rps),
                ["p50Ms"] = JsonValue(s.Stats.Ok.Latency.P50Ms),
                ["p99Ms"] = JsonValue(s.Stats.Ok.Latency.P99Ms),
            })]);
        }
        return root.ToJsonString(new JsonSerializerOptions { WriteIndented = true });
    }

    public string ToMarkdown()
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"# {Title}\n\n");
        foreach (var (name, value) in _facts)
        {
            text.Append(CultureInfo.InvariantCulture, $"- {name}: {Format(value)}\n");
        }

        foreach (var (group, columns, rows) in Tables())
        {
            if (group != null)
            {
                text.Append(CultureInfo.InvariantCulture, $"\n## {_groupColumn}: {group}\n");
            }

            text.Append('\n');
            text.Append("| ").AppendJoin(" | ", columns).Append(" |\n");
            text.Append('|').AppendJoin("|", columns.Select(_ => "---")).Append("|\n");
            foreach (var row in rows)
            {
                text.Append("| ").AppendJoin(" | ", columns.Select(c => Format(row.GetValueOrDefault(c)))).Append(" |\n");
            }
        }

        foreach (var note in _notes)
        {
            text.Append('\n').Append(note).Append('\n');
        }

        return text.ToString();
    }

    private static JsonValue? JsonValue(object? value) => value switch
    {
        null => null,
        double d when !double.IsFinite(d) => null, // JSON has no infinity: a ratio over a zero rate
        double d => System.Text.Json.Nodes.JsonValue.Create(Math.Round(d, 4)),
        long l => System.Text.Json.Nodes.JsonValue.Create(l),
        int i => System.Text.Json.Nodes.JsonValue.Create(i),
        bool b => System.Text.Json.Nodes.JsonValue.Create(b),
        _ => System.Text.Json.Nodes.JsonValue.Create(Convert.ToString(value, CultureInfo.InvariantCulture)),
    };

    /// <summary>A cell or fact as the Markdown and the HTML show it (invariant culture, thousands separated).</summary>
    internal static string Format(object? value) => value switch
    {
        null => "",
        double d when Math.Abs(d) >= 1000 => d.ToString("N0", CultureInfo.InvariantCulture),
        double d when Math.Abs(d) >= 10 => d.ToString("F1", CultureInfo.InvariantCulture),
        double d => d.ToString("0.###", CultureInfo.InvariantCulture),
        long l => l.ToString("N0", CultureInfo.InvariantCulture),
        int i => i.ToString("N0", CultureInfo.InvariantCulture),
        _ => Convert.ToString(value, CultureInfo.InvariantCulture) ?? "",
    };
}
