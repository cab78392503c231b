using System.Text.RegularExpressions;

namespace Voron.Tests.Codebase;

// Design notes — the invariant ids of the repository, collected (docs/invariants.md is generated
// from this; its header states the same rules for readers).
//
// An id is a prefix of one to three capital letters, one per subsystem (Prefixes below), then one
// or two digits: J3, FL9, PT7.
//
// Definition: a line of a .cs file that is a comment (// or ///) whose text, after spaces and an
// optional <item>, starts with the id, a period and a space — the rule-block form, for example
// "//   J3. A record is written only after ..." or "/// <item>F1. a write is durable ...". The
// rule's text is the rest of that line and the comment lines under it that are indented further
// or that finish its sentence (for an <item>, up to </item>). Nothing else defines: "J3:" at the
// start of a comment cites J3.
//
// Citation: the id as a whole word (no letter, digit or _ around it) in a .cs file, README.md or
// docs/**/*.md (docs/invariants.md excepted: it is generated), when its prefix has a definition.
// Not a citation: a token right after ':' or after ToString(" (.NET format specifiers such as
// {x:F1} and ToString("F1")), and the tokens in Ignored. A range "R1..R9" cites its two ends.
//
// A rule list is a run of definitions on consecutive lines (each with the lines of its text); its
// ids of one prefix appear in numeric order, so a reader who looks for FL4 finds it between FL3
// and FL5.
//
// A range that locates a prefix's rules — any range in README.md or docs/**/*.md (but the dated
// pages under docs/results/, which record what was true then), or one right after the word
// "rule"/"rules" in a .cs file — and starts at the prefix's first id reaches its last: "V1–V16"
// goes stale the day V17 is written. A subset is cited without the word "rules" in code ("the
// archive's release path, JA1..JA4").
//
// A note that says something is "not ... yet": in a comment block (consecutive comment lines) of a
// .cs file or a paragraph of those Markdown files, the words not/no/nothing ... yet in one
// sentence, with "yet" not followed by a lowercase word ("not yet durable" describes a state, not
// something missing). They are listed so that stale ones surface.

/// <summary>A rule's definition: its id, its prefix, its text and where it is.</summary>
internal sealed record InvariantDefinition(string Id, string Prefix, int Number, string Text, string File, int Line)
{
    /// <summary>The last line of the rule's text (the definition's line when it fits on one).</summary>
    public int EndLine { get; init; } = Line;
}

/// <summary>A range of ids that locates a prefix's rules ("rules V1–V18", or any range in the docs): its prefix and its two ends.</summary>
internal sealed record QuotedRange(string Text, string Prefix, int From, int To, string File, int Line);

/// <summary>A place that names an id.</summary>
internal sealed record InvariantCitation(string Id, string File, int Line);

/// <summary>A note found by the "not ... yet" scan: something the code or the docs say is missing.</summary>
internal sealed record NotYetNote(string File, int Line, string Text);

/// <summary>A file to scan: its path relative to the repository root (forward slashes) and its text.</summary>
internal sealed record SourceText(string Path, string Text);

/// <summary>The invariant ids of a set of files: definitions, citations, problems, and the generated page.</summary>
internal sealed partial class InvariantIds
{
    /// <summary>The page generated from the repository, relative to its root.</summary>
    public const string PagePath = "docs/invariants.md";

    /// <summary>The command that writes <see cref="PagePath"/> again.</summary>
    public const string RegenerateCommand =
        "VORON_WRITE_INVARIANTS=1 dotnet test Voron.Tests -c Release --filter \"FullyQualifiedName~InvariantIdTests\"";

    /// <summary>Each prefix and the subsystem it belongs to: one prefix, one subsystem.</summary>
    public static readonly IReadOnlyDictionary<string, string> Prefixes = new Dictionary<string, string>(StringComparer.Ordinal)
    {
        ["A"] = "Core: page allocator",
        ["AC"] = "Core: the journal archive's compaction note format",
        ["AD"] = "Core: archive destination contract (put-if-absent, ranged get, ordered list, delete)",
        ["AK"] = "Core: archive key layout in a destination",
        ["AO"] = "Core: archive object format (header, checksum chain)",
        ["B"] = "Core: tree page format",
        ["BI"] = "Documents: bulk insert",
        ["BK"] = "Core: hot backup and restore",
        ["BM"] = "Core: backup manifest format",
        ["BR"] = "AspNetCore: bad requests and empty error answers",
        ["BT"] = "Core: B+tree",
        ["C"] = "Core: commit pipeline",
        ["CF"] = "Documents: change feed (log, feed, retention, format 2)",
        ["CP"] = "Core: compaction (dense copy, marker, swap)",
        ["CT"] = "Tests: crash and fault test plan",
        ["CW"] = "Core: waiting for commits (WaitForCommitAsync)",
        ["D"] = "Core: journal recovery decision (torn tail or corruption)",
        ["DH"] = "SqliteVfs: the document hook (the page layer's one door to SQL over documents)",
        ["DR"] = "Documents: document record format",
        ["EX"] = "SqliteVfs/SqliteExtension: SQLite API binding (process library or an extension's API table)",
        ["F"] = "Core: file I/O durability contract",
        ["FL"] = "Core: data-file flusher",
        ["FS"] = "Core: free-space format",
        ["H"] = "AspNetCore: hosting",
        ["HF"] = "Core: header file format",
        ["I"] = "Documents: document store",
        ["IP"] = "Core: new pages written in place by a large commit",
        ["IX"] = "Documents: index definition record format",
        ["J"] = "Core: journal writer",
        ["JA"] = "Core: journal archive and point-in-time restore",
        ["JH"] = "Core: journal record header",
        ["JV"] = "Documents: JSON text validation",
        ["K"] = "Documents: index key encoding",
        ["L"] = "Documents: store layout (trees and meta keys)",
        ["LB"] = "Core: LZ4 block as the journal stores it",
        ["LC"] = "Core: environment lifecycle (dispose)",
        ["LF"] = "Core: lock file holder record",
        ["LS"] = "Core: the archive writer's lease (one shipper per lineage)",
        ["LW"] = "Core: conditional-write capability of an archive destination (the lease store)",
        ["M"] = "Core: transaction merger",
        ["MG"] = "Core: transaction merger, caller-run batches",
        ["MM"] = "Core: portable memory mapping",
        ["MV"] = "Core: releasing the views a moving mapping leaves behind",
        ["NC"] = "Documents: numeric comparisons in queries",
        ["OA"] = "Core: object archive (snapshots, restore and retention from a destination)",
        ["OP"] = "Core: the decrypted-page cache of a sealed store (opened pages)",
        ["QC"] = "Documents: the query translation cache",
        ["O"] = "Tests: crash oracle (store model)",
        ["P"] = "Core: page header format",
        ["PB"] = "Core: page buffer pool",
        ["PE"] = "PostgreSql: export to PostgreSQL (resumable COPY into Marten's tables)",
        ["PD"] = "Core: page diff format",
        ["PF"] = "Core: page file format",
        ["PG"] = "Core: pager",
        ["PT"] = "Core: page table",
        ["R"] = "Core: journal record format",
        ["RE"] = "Core: read replicas that follow a shipped journal",
        ["RP"] = "Documents: the read port (stored documents and index entries of one snapshot, for the SQL module)",
        ["RR"] = "Core: rebuilding a read replica from a snapshot (re-snapshot) and its crash-safe swap",
        ["S"] = "Documents: sessions",
        ["SC"] = "Core: scratch file",
        ["SD"] = "SqliteVfs.Documents: SQL over documents (voron_docs)",
        ["SE"] = "AspNetCore: the change stream (server-sent events)",
        ["SL"] = "Core: sealing (encryption at rest: keys, nonces, sealed pages and records)",
        ["SH"] = "Core: shipping the journal archive to a destination",
        ["SI"] = "Core: inspecting a store without opening it",
        ["SP"] = "Core: section allocation policy",
        ["ST"] = "Core: store statistics",
        ["SU"] = "Documents: subscriptions (stored positions, one worker, acknowledgement)",
        ["SV"] = "Documents: the save path (text check and index values in one pass)",
        ["T"] = "Core: transactions",
        ["TR"] = "Core: timely release of the journal to a destination",
        ["V"] = "SqliteVfs: database layer (locks, snapshots, commits)",
        ["VT"] = "SqliteVfs: native bridge of virtual-table modules",
        ["WB"] = "SqliteVfs: the block buffers of write sets and versions (pool and lifetime)",
        ["WL"] = "SqliteVfs: a database's write lock (who takes a free lock, starvation bound, statistics)",
        ["WP"] = "Documents: the write port (prepare on the caller's thread, apply in the merged operation)",
        ["XE"] = "Documents: document expiration",
        ["XP"] = "Documents: export and import (JSON Lines)",
    };

    /// <summary>Tokens that look like ids of a defined prefix but are not: C23 is the C language standard.</summary>
    public static readonly IReadOnlySet<string> Ignored = new HashSet<string>(StringComparer.Ordinal) { "C23" };

    private InvariantIds(List<InvariantDefinition> definitions, List<InvariantCitation> citations, List<NotYetNote> notes, List<QuotedRange> ranges)
    {
        Definitions = definitions;
        Citations = citations;
        NotYetNotes = notes;
        Ranges = ranges;
    }

    /// <summary>Every range that locates a prefix's rules, in file and line order.</summary>
    public IReadOnlyList<QuotedRange> Ranges { get; }

    /// <summary>Every definition, in file and line order (duplicates included).</summary>
    public IReadOnlyList<InvariantDefinition> Definitions { get; }

    /// <summary>Every citation, in file and line order.</summary>
    public IReadOnlyList<InvariantCitation> Citations { get; }

    /// <summary>Every "not ... yet" note, in file and line order.</summary>
    public IReadOnlyList<NotYetNote> NotYetNotes { get; }

    /// <summary>The files the collector reads: every .cs file outside bin/, obj/ and hidden folders, README.md and docs/**/*.md but the generated page.</summary>
    public static IReadOnlyList<SourceText> ReadRepository(string root)
    {
        var files = new List<SourceText>();
        Walk(root, root, files);
        var readme = Path.Combine(root, "README.md");
        if (File.Exists(readme))
        {
            files.Add(new SourceText("README.md", File.ReadAllText(readme)));
        }

        var docs = Path.Combine(root, "docs");
        if (Directory.Exists(docs))
        {
            foreach (var path in Directory.EnumerateFiles(docs, "*.md", SearchOption.AllDirectories))
            {
                var relative = Relative(root, path);
                if (relative != PagePath)
                {
                    files.Add(new SourceText(relative, File.ReadAllText(path)));
                }
            }
        }

        files.Sort((a, b) => string.CompareOrdinal(a.Path, b.Path));
        return files;
    }

    private static void Walk(string root, string directory, List<SourceText> files)
    {
        foreach (var path in Directory.EnumerateFiles(directory, "*.cs"))
        {
            files.Add(new SourceText(Relative(root, path), File.ReadAllText(path)));
        }

        foreach (var child in Directory.EnumerateDirectories(directory))
        {
            var name = Path.GetFileName(child);
            if (name is not ("bin" or "obj" or "node_modules") && !name.StartsWith('.'))
            {
                Walk(root, child, files);
            }
        }
    }

    private static string Relative(string root, string path) => Path.GetRelativePath(root, path).Replace('\\', '/');

    /// <summary>Collects the definitions, citations and notes of <paramref name="files"/>.</summary>
    public static InvariantIds Collect(IEnumerable<SourceText> files)
    {
        var sorted = files.OrderBy(f => f.Path, StringComparer.Ordinal).ToList();
        var definitions = new List<InvariantDefinition>();
        var notes = new List<NotYetNote>();
        foreach (var file in sorted)
        {
            var lines = Lines(file.Text);
            if (file.Path.EndsWith(".cs", StringComparison.Ordinal))
            {
                CollectDefinitions(file.Path, lines, definitions);
                CollectNotes(file.Path, CommentBlocks(lines), notes);
            }
            else
            {
                CollectNotes(file.Path, Paragraphs(lines), notes);
            }
        }

        var prefixes = definitions.Select(d => d.Prefix).ToHashSet(StringComparer.Ordinal);
        var defining = definitions.Select(d => (d.File, d.Line)).ToHashSet();
        var citations = new List<InvariantCitation>();
        var ranges = new List<QuotedRange>();
        foreach (var file in sorted)
        {
            var lines = Lines(file.Text);
            var markdown = file.Path.EndsWith(".md", StringComparison.Ordinal);
            var dated = file.Path.StartsWith("docs/results/", StringComparison.Ordinal);
            for (var i = 0; i < lines.Length; i++)
            {
                var line = lines[i];
                foreach (Match range in IdRange().Matches(line))
                {
                    if (prefixes.Contains(range.Groups["prefix"].Value) && !dated && (markdown || range.Groups["rules"].Success))
                    {
                        ranges.Add(new QuotedRange(range.Groups["range"].Value, range.Groups["prefix"].Value,
                            int.Parse(range.Groups["from"].Value, CultureInfo.InvariantCulture),
                            int.Parse(range.Groups["to"].Value, CultureInfo.InvariantCulture), file.Path, i + 1));
                    }
                }

                var definitionToken = defining.Contains((file.Path, i + 1)) ? DefinitionLine().Match(line).Groups["id"].Index : -1;
                foreach (Match token in IdToken().Matches(line))
                {
                    if (token.Index == definitionToken
                        || !prefixes.Contains(token.Groups["prefix"].Value)
                        || Ignored.Contains(token.Value)
                        || (token.Index > 0 && line[token.Index - 1] == ':')
                        || line.AsSpan(0, token.Index).EndsWith("ToString(\"", StringComparison.Ordinal))
                    {
                        continue;
                    }

                    citations.Add(new InvariantCitation(token.Value, file.Path, i + 1));
                }
            }
        }

        return new InvariantIds(definitions, citations, notes, ranges);
    }

    private static string[] Lines(string text) => text.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');

    private static void CollectDefinitions(string path, string[] lines, List<InvariantDefinition> definitions)
    {
        for (var i = 0; i < lines.Length; i++)
        {
            var match = DefinitionLine().Match(lines[i]);
            if (!match.Success)
            {
                continue;
            }

            var text = new StringBuilder(match.Groups["text"].Value.Trim());
            var item = match.Groups["item"].Success;
            var indent = match.Groups["indent"].Length;
            var end = i;
            for (var j = i + 1; j < lines.Length && !(item && text.ToString().Contains("</item>", StringComparison.Ordinal)); j++)
            {
                var comment = CommentText().Match(lines[j]);
                if (!comment.Success || DefinitionLine().IsMatch(lines[j]) || comment.Groups["text"].Value.Trim().Length == 0)
                {
                    break;
                }

                var leading = comment.Groups["text"].Value.Length - comment.Groups["text"].Value.TrimStart().Length;
                if (!item && leading <= indent && text.ToString().TrimEnd() is [.., '.' or ';' or ':' or '!' or '?'])
                {
                    break;
                }

                text.Append(' ').Append(comment.Groups["text"].Value.Trim());
                end = j;
            }

            var id = match.Groups["id"].Value;
            var prefix = match.Groups["prefix"].Value;
            definitions.Add(new InvariantDefinition(id, prefix, int.Parse(match.Groups["number"].Value, CultureInfo.InvariantCulture),
                Plain(text.ToString()), path, i + 1) { EndLine = end + 1 });
        }
    }

    /// <summary>Runs of consecutive comment lines, joined, with the line each character came from.</summary>
    private static IEnumerable<(string Text, int[] LineOf)> CommentBlocks(string[] lines) =>
        Blocks(lines, line => CommentText().Match(line) is { Success: true } m ? m.Groups["text"].Value.Trim() : null);

    /// <summary>Markdown paragraphs (runs of non-blank lines; a table row or a heading stands alone), joined, with the line each character came from.</summary>
    private static IEnumerable<(string Text, int[] LineOf)> Paragraphs(string[] lines) =>
        Blocks(lines, line => line.Trim().Length > 0 ? line.Trim() : null, line => line.TrimStart() is ['|' or '#', ..]);

    private static IEnumerable<(string Text, int[] LineOf)> Blocks(string[] lines, Func<string, string?> part, Func<string, bool>? alone = null)
    {
        var text = new StringBuilder();
        var lineOf = new List<int>();
        for (var i = 0; i <= lines.Length; i++)
        {
            var piece = i < lines.Length ? part(lines[i]) : null;
            var single = piece != null && alone != null && alone(lines[i]);
            if ((piece == null || single) && text.Length > 0)
            {
                yield return (text.ToString(), lineOf.ToArray());
                text.Clear();
                lineOf.Clear();
            }

            if (piece == null)
            {
                continue;
            }

            if (single)
            {
                yield return (piece, Enumerable.Repeat(i + 1, piece.Length).ToArray());
                continue;
            }

            if (text.Length > 0)
            {
                text.Append(' ');
                lineOf.Add(i + 1);
            }

            text.Append(piece);
            lineOf.AddRange(Enumerable.Repeat(i + 1, piece.Length));
        }
    }

    private static void CollectNotes(string path, IEnumerable<(string Text, int[] LineOf)> blocks, List<NotYetNote> notes)
    {
        foreach (var (text, lineOf) in blocks)
        {
            foreach (Match match in NotYet().Matches(text))
            {
                var start = match.Index;
                while (start > 0 && !EndsSentence(text, start - 1))
                {
                    start--;
                }

                var stop = match.Index + match.Length;
                while (stop < text.Length && !EndsSentence(text, stop - 1))
                {
                    stop++;
                }

                var sentence = text[start..stop].Trim();
                notes.Add(new NotYetNote(path, lineOf[match.Index], Shorten(Plain(sentence), 220)));
            }
        }
    }

    /// <summary>Whether text[i] ends a sentence: '.', '!' or '?' before a space, a tag or the end ("Voron.Core" is one word).</summary>
    private static bool EndsSentence(string text, int i) =>
        text[i] is '.' or '!' or '?' && (i + 1 == text.Length || text[i + 1] is ' ' or '<');

    /// <summary>
    /// Duplicate definitions, citations of ids nobody defines, prefixes missing from (or left in)
    /// <see cref="Prefixes"/>, rule lists out of numeric order and ranges that locate a prefix's
    /// rules but stop short of its last id: one line each, naming file:line.
    /// </summary>
    public IReadOnlyList<string> Problems(IReadOnlyDictionary<string, string>? prefixes = null)
    {
        prefixes ??= Prefixes;
        var problems = new List<string>();
        var first = new Dictionary<string, InvariantDefinition>(StringComparer.Ordinal);
        foreach (var definition in Definitions)
        {
            if (first.TryGetValue(definition.Id, out var earlier))
            {
                problems.Add($"{definition.File}:{definition.Line}: {definition.Id} is defined again (first at {earlier.File}:{earlier.Line}); an id means one thing");
            }
            else
            {
                first.Add(definition.Id, definition);
            }
        }

        foreach (var citation in Citations.Where(c => !first.ContainsKey(c.Id)))
        {
            problems.Add($"{citation.File}:{citation.Line}: {citation.Id} is cited but not defined");
        }

        foreach (var definition in first.Values.Where(d => !prefixes.ContainsKey(d.Prefix)).GroupBy(d => d.Prefix).Select(g => g.First()))
        {
            problems.Add($"{definition.File}:{definition.Line}: prefix {definition.Prefix} is not in InvariantIds.Prefixes (name its subsystem there)");
        }

        foreach (var prefix in prefixes.Keys.Where(p => !first.Values.Any(d => d.Prefix == p)).Order(StringComparer.Ordinal))
        {
            problems.Add($"{nameof(InvariantIds)}.{nameof(Prefixes)}: prefix {prefix} has no definition any more");
        }

        for (var i = 1; i < Definitions.Count; i++)
        {
            var (before, after) = (Definitions[i - 1], Definitions[i]);
            if (before.File == after.File && after.Line == before.EndLine + 1 && before.Prefix == after.Prefix && after.Number < before.Number)
            {
                problems.Add($"{after.File}:{after.Line}: {after.Id} comes after {before.Id} in one rule list; put the list in numeric order");
            }
        }

        var span = first.Values.GroupBy(d => d.Prefix, StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => (Low: g.Min(d => d.Number), High: g.Max(d => d.Number)), StringComparer.Ordinal);
        foreach (var range in Ranges)
        {
            if (span.TryGetValue(range.Prefix, out var ids) && range.From == ids.Low && range.To < ids.High)
            {
                problems.Add($"{range.File}:{range.Line}: {range.Text} locates the rules of {range.Prefix}, but {range.Prefix}{ids.Low}–{range.Prefix}{ids.High} are defined; "
                    + "quote the whole range (or, in code, cite a subset without the word \"rules\")");
            }
        }

        return problems;
    }

    /// <summary>The page docs/invariants.md: deterministic (sorted, no dates, repository-relative paths).</summary>
    public string RenderPage()
    {
        var ids = Definitions.GroupBy(d => d.Id, StringComparer.Ordinal).Select(g => g.First())
            .OrderBy(d => d.Prefix, StringComparer.Ordinal).ThenBy(d => d.Number).ToList();
        var counts = Citations.GroupBy(c => c.Id, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.Count(), StringComparer.Ordinal);
        var page = new StringBuilder();
        page.Append(CultureInfo.InvariantCulture, $$"""
            # Invariant ids

            Generated from the code by `Voron.Tests/Codebase/InvariantIds.cs`; do not edit by hand.
            `InvariantIdTests` fails when this page differs from what the code says. Regenerate it with

                {{RegenerateCommand}}

            Every numbered rule (invariant, validity rule, step) has an id: a prefix of one to three
            capital letters, one per subsystem, then a number (`J3`, `FL9`, `PT7`). An id means one
            thing in the whole repository; the test fails on an id defined twice and on a citation of
            an id that is not defined, naming the file and line.

            - **Definition**: a line of a `.cs` file that is a comment (`//` or `///`) whose text, after
              spaces and an optional `<item>`, starts with the id, a period and a space. The rule's text
              is the rest of that line and the comment lines under it that are indented further or
              that finish its sentence (for an `<item>`, up to `</item>`). `J3:` at the start of a
              comment cites J3; it does not define it.
            - **Citation**: the id as a whole word in a `.cs` file, `README.md` or `docs/**/*.md` (not
              this page), when its prefix has a definition. Not a citation: a token right after `:` or
              after `ToString("` (.NET format specifiers such as `{x:F1}`), and {{string.Join(", ", Ignored.Order(StringComparer.Ordinal).Select(t => $"`{t}`"))}}
              (the C language standard). A range `R1..R9` cites its two ends.
            - **Rule list**: definitions on consecutive lines; their ids appear in numeric order.
            - **Range that locates rules**: any range in `README.md` and `docs/` (not the dated pages
              of `docs/results/`), or one after the word "rules" in a `.cs` file. When it starts at
              a prefix's first id it reaches the last, so "V1–V16" fails the day V17 is written.
            - **New prefix**: name its subsystem in `InvariantIds.Prefixes`; the test fails until then.

            {{ids.Count}} ids under {{ids.Select(d => d.Prefix).Distinct(StringComparer.Ordinal).Count()}} prefixes, {{Citations.Count}} citations.

            ## Prefixes

            | Prefix | Subsystem | Ids | Defined in |
            |---|---|---|---|

            """);
        foreach (var group in ids.GroupBy(d => d.Prefix, StringComparer.Ordinal))
        {
            var name = Prefixes.TryGetValue(group.Key, out var subsystem) ? subsystem : "(not in InvariantIds.Prefixes)";
            var files = string.Join(", ", group.Select(d => d.File).Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal).Select(f => $"[{f}](../{f})"));
            page.Append(CultureInfo.InvariantCulture, $"| {group.Key} | {Cell(name)} | {group.First().Id}–{group.Last().Id} ({group.Count()}) | {files} |\n");
        }

        page.Append("\n## Ids\n\n| Id | Rule | Defined at | Citations |\n|---|---|---|---|\n");
        foreach (var definition in ids)
        {
            var where = $"[{definition.File}:{definition.Line}]({LineLink(definition.File, definition.Line)})";
            page.Append(CultureInfo.InvariantCulture,
                $"| {definition.Id} | {Cell(Shorten(definition.Text, 200))} | {where} | {counts.GetValueOrDefault(definition.Id)} |\n");
        }

        page.Append("""

            ## Notes that say "not ... yet"

            Comments and docs that say something is not done yet. Each should still be true: when the
            thing is done, change the note (and the code that works around it).

            | Where | Note |
            |---|---|

            """);
        foreach (var note in NotYetNotes)
        {
            page.Append(CultureInfo.InvariantCulture, $"| [{note.File}:{note.Line}]({LineLink(note.File, note.Line)}) | {Cell(note.Text)} |\n");
        }

        return page.ToString();
    }

    /// <summary>XML doc markup reduced to its text: &lt;see cref="X"/&gt; is X, tags go, entities are decoded.</summary>
    private static string Plain(string text)
    {
        text = CrefOrName().Replace(text, m => m.Groups["name"].Value);
        text = Tag().Replace(text, "");
        return text.Replace("&lt;", "<", StringComparison.Ordinal).Replace("&gt;", ">", StringComparison.Ordinal)
            .Replace("&amp;", "&", StringComparison.Ordinal).Trim();
    }

    private static string Shorten(string text, int max)
    {
        if (text.Length <= max)
        {
            return text;
        }

        var cut = text.LastIndexOf(' ', max - 1);
        return text[..(cut > max / 2 ? cut : max - 1)].TrimEnd(',', ';', ':') + "…";
    }

    // A line anchor ("#L" and the line) works for a source file; a Markdown page is rendered, where an anchor
    // names a heading, so a page is linked without one (its line is in the link's text).
    private static string LineLink(string file, int line) =>
        file.EndsWith(".md", StringComparison.Ordinal)
            ? $"../{file}"
            : string.Create(CultureInfo.InvariantCulture, $"../{file}#L{line}");

    private static string Cell(string text) => text.Replace("|", "\\|", StringComparison.Ordinal);

    [GeneratedRegex(@"^\s*///?(?<indent>\s*)(?<item><item>)?(?<id>(?<prefix>[A-Z]{1,3})(?<number>[0-9]{1,2}))\.\s(?<text>.*)$")]
    private static partial Regex DefinitionLine();

    [GeneratedRegex(@"^\s*///?(?<text>.*)$")]
    private static partial Regex CommentText();

    [GeneratedRegex(@"(?<![A-Za-z0-9_])(?<prefix>[A-Z]{1,3})[0-9]{1,2}(?![A-Za-z0-9_])")]
    private static partial Regex IdToken();

    [GeneratedRegex(@"(?<rules>\brules?\s+)?(?<![A-Za-z0-9_])(?<range>(?<prefix>[A-Z]{1,3})(?<from>[0-9]{1,2})\s?(?:–|—|\.\.|-)\s?\k<prefix>(?<to>[0-9]{1,2}))(?![A-Za-z0-9_])")]
    private static partial Regex IdRange();

    [GeneratedRegex(@"\b(?:[Nn]ot|[Nn]o|[Nn]othing)\b[^.;!?]*?\byet\b(?!\s+[a-z])")]
    private static partial Regex NotYet();

    [GeneratedRegex("""<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword)="(?<name>[^"]*)"\s*/>""")]
    private static partial Regex CrefOrName();

    [GeneratedRegex(@"</?[a-z]+(?:\s+[a-z]+=""[^""]*"")*\s*/?>")]
    private static partial Regex Tag();
}
