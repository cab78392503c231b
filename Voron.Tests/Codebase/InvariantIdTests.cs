namespace Voron.Tests.Codebase;

/// <summary>
/// An invariant id means one thing in the whole repository (docs/invariants.md, generated from
/// the code by <see cref="InvariantIds"/>): no id is defined twice, every id cited is defined,
/// and the page says what the code says.
/// </summary>
public sealed class InvariantIdTests
{
    private static readonly Lazy<InvariantIds> Repository = new(() => InvariantIds.Collect(InvariantIds.ReadRepository(RepositoryRoot.Find())));

    // The synthetic inputs use prefix ZQ, which the repository does not define: their lines are
    // single-line strings, so the scan of this file finds no definition in them either.
    private static readonly Dictionary<string, string> SyntheticPrefixes = new(StringComparer.Ordinal) { ["ZQ"] = "synthetic" };

    [Fact]
    public void Every_id_is_defined_once_and_every_cited_id_is_defined()
    {
        var problems = Repository.Value.Problems();

        Assert.True(problems.Count == 0, "Invariant ids (docs/invariants.md's header has the rules):\n" + string.Join("\n", problems));
    }

    [Fact]
    public void Page_of_invariants_matches_the_code()
    {
        var root = RepositoryRoot.Find();
        var path = Path.Combine(root, InvariantIds.PagePath);
        var expected = Repository.Value.RenderPage();
        if (Environment.GetEnvironmentVariable("VORON_WRITE_INVARIANTS") == "1")
        {
            File.WriteAllText(path, expected);
        }

        var actual = File.Exists(path) ? File.ReadAllText(path).Replace("\r\n", "\n", StringComparison.Ordinal) : "";
        Assert.True(actual == expected,
            $"{InvariantIds.PagePath} is not what the code says ({FirstDifference(expected, actual)}). Regenerate it: {InvariantIds.RegenerateCommand}");
    }

    [Fact]
    public void Collector_finds_the_rule_blocks_of_the_repository()
    {
        var ids = Repository.Value;

        // One definition of each form: a // rule block, an XML <item>, a decision table, a test plan.
        Assert.Contains(ids.Definitions, d => d.Id == "FL9" && d.File == "Voron.Core/Flushing/DataFileFlusher.cs");
        Assert.Contains(ids.Definitions, d => d.Id == "F1" && d.File == "Voron.Core/Platform/IStorageFile.cs" && d.Text.StartsWith("a write is durable", StringComparison.Ordinal));
        Assert.Contains(ids.Definitions, d => d.Id == "D6" && d.File == "Voron.Core/Journal/JournalReader.cs");
        Assert.Contains(ids.Definitions, d => d.Id == "CT1" && d.File == "Voron.Tests/Core/Crash/EnumeratedCrashTests.cs");
        Assert.Contains(ids.Citations, c => c.Id == "FL0" && c.File == "docs/durability.md");
        Assert.All(InvariantIds.Prefixes.Keys, prefix => Assert.Contains(ids.Definitions, d => d.Prefix == prefix));
    }

    [Fact]
    public void Duplicate_definition_is_reported_with_both_places()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/First.cs", "// Rules:\n//   ZQ1. the first meaning;\n//   ZQ2. another rule.\n"),
            new SourceText("B/Second.cs", "namespace X;\n\n/// <summary>\n/// <item>ZQ1. a second meaning</item>\n/// </summary>\n"),
        ]);

        var problems = ids.Problems(SyntheticPrefixes);

        var problem = Assert.Single(problems);
        Assert.Equal("B/Second.cs:4: ZQ1 is defined again (first at A/First.cs:2); an id means one thing", problem);
    }

    [Fact]
    public void Citation_of_an_undefined_id_is_reported_with_its_place()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Rules.cs", "//   ZQ1. a rule;\n//   ZQ2. another.\n"),
            new SourceText("A/Use.cs", "class C\n{\n    // ZQ2: kept here\n    void M() => throw new InvalidOperationException(\"ZQ3: broken\");\n}\n"),
            new SourceText("docs/page.md", "Rules ZQ1..ZQ2 and ZQ9.\n"),
        ]);

        var problems = ids.Problems(SyntheticPrefixes);

        Assert.Equal(["A/Use.cs:4: ZQ3 is cited but not defined", "docs/page.md:1: ZQ9 is cited but not defined"], problems);
    }

    [Fact]
    public void Rule_list_out_of_numeric_order_is_reported_and_separate_lists_are_not()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Rules.cs", "// Invariants:\n//   ZQ1. first;\n//   ZQ3. third, over\n//        two lines;\n//   ZQ2. second.\n"),
            new SourceText("B/Rules.cs", "// Validity:\n//   ZQ5. fifth.\n//\n// Invariants:\n//   ZQ4. fourth.\n"),
        ]);

        var problems = ids.Problems(SyntheticPrefixes);

        Assert.Equal(["A/Rules.cs:5: ZQ2 comes after ZQ3 in one rule list; put the list in numeric order"], problems);
    }

    [Fact]
    public void Range_that_locates_a_prefixs_rules_and_stops_before_its_last_id_is_reported()
    {
        var rules = new SourceText("A/Rules.cs", "//   ZQ1. one.\n//   ZQ2. two.\n//   ZQ3. three.\n");
        var ids = InvariantIds.Collect([
            rules,
            new SourceText("A/Use.cs", "// the locks (rules ZQ1–ZQ2 in Rules.cs)\n// the release path, ZQ1..ZQ2 (a subset)\n// rules ZQ1..ZQ3 and rules ZQ2-ZQ3\n"),
            new SourceText("docs/page.md", "Locks (ZQ1–ZQ2), the rest (ZQ2–ZQ3).\n"),
            new SourceText("docs/results/2026-01-01-old.md", "Then the rules were ZQ1–ZQ2.\n"),
        ]);

        var problems = ids.Problems(SyntheticPrefixes);

        Assert.Equal(
            ["A/Use.cs:1: ZQ1–ZQ2 locates the rules of ZQ, but ZQ1–ZQ3 are defined; quote the whole range (or, in code, cite a subset without the word \"rules\")",
             "docs/page.md:1: ZQ1–ZQ2 locates the rules of ZQ, but ZQ1–ZQ3 are defined; quote the whole range (or, in code, cite a subset without the word \"rules\")"],
            problems);
    }

    [Fact]
    public void Citing_line_at_the_start_of_a_comment_is_not_a_definition()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Rules.cs", "//   ZQ1. a rule.\n"),
            new SourceText("A/Use.cs", "// ZQ1: cited, not defined again\n/// ZQ1 holds here\n"),
        ]);

        Assert.Empty(ids.Problems(SyntheticPrefixes));
        Assert.Equal(2, ids.Citations.Count);
    }

    [Fact]
    public void Format_specifiers_and_unknown_prefixes_are_not_citations()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Rules.cs", "//   ZQ1. a rule.\n"),
            new SourceText("A/Use.cs", "var a = $\"{x:ZQ5}\";\nvar b = n.ToString(\"ZQ7\", CultureInfo.InvariantCulture);\n// Q1 and XY2 have no definitions: not ids\n"),
        ]);

        Assert.Empty(ids.Problems(SyntheticPrefixes));
        Assert.Empty(ids.Citations);
    }

    [Fact]
    public void Definition_text_takes_the_lines_indented_under_it()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Rules.cs", "//   ZQ1. first line,\n//        second line.\n//   ZQ2. next rule.\n// not part of it\n"),
        ]);

        Assert.Equal(["first line, second line.", "next rule."], ids.Definitions.Select(d => d.Text));
    }

    [Fact]
    public void Definition_text_in_a_summary_runs_to_the_end_of_its_sentence()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Tests.cs", "/// <summary>\n/// ZQ1. a crash at every call, each\n/// with every damage model.\n/// More about it.\n/// </summary>\n"),
        ]);

        Assert.Equal("a crash at every call, each with every damage model.", Assert.Single(ids.Definitions).Text);
    }

    [Fact]
    public void Markdown_table_row_is_a_note_of_its_own()
    {
        var ids = InvariantIds.Collect([
            new SourceText("docs/page.md", "| Subject | Where |\n|---|---|\n| Compaction: not built yet | nowhere |\n| Next | row |\n"),
        ]);

        var note = Assert.Single(ids.NotYetNotes);
        Assert.Equal(3, note.Line);
        Assert.Equal("| Compaction: not built yet | nowhere |", note.Text);
    }

    [Fact]
    public void Notes_that_say_not_yet_are_listed_and_states_are_not()
    {
        var ids = InvariantIds.Collect([
            new SourceText("A/Host.cs", "// The engine has no public failure\n// state yet; the host probes it.\n// A commit not yet durable waits.\n"),
            new SourceText("docs/page.md", "Voron has no compaction yet (planned).\n\nNothing else.\n"),
        ]);

        Assert.Equal(
            [new NotYetNote("A/Host.cs", 1, "The engine has no public failure state yet; the host probes it."),
             new NotYetNote("docs/page.md", 1, "Voron has no compaction yet (planned).")],
            ids.NotYetNotes);
    }

    private static string FirstDifference(string expected, string actual)
    {
        var expectedLines = expected.Split('\n');
        var actualLines = actual.Split('\n');
        for (var i = 0; i < Math.Max(expectedLines.Length, actualLines.Length); i++)
        {
            var want = i < expectedLines.Length ? expectedLines[i] : "(end)";
            var got = i < actualLines.Length ? actualLines[i] : "(end)";
            if (want != got)
            {
                return $"line {i + 1}: expected \"{want}\", found \"{got}\"";
            }
        }

        return "same lines";
    }
}
