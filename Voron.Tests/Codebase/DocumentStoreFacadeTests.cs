using System.Text.RegularExpressions;

namespace Voron.Tests.Codebase;

/// <summary>
/// The root of Voron.Documents holds façades, as Voron.Core's root files do: a public member of
/// <c>DocumentStore</c> stays where users find it, checks its arguments and delegates to the type in
/// the folder of its concern (<c>Indexing/</c>, <c>Changes/</c>, <c>Export/</c>,
/// <c>Diagnostics/</c>, ...), which holds the logic, its state and its numbered rules. So the
/// <c>DocumentStore*.cs</c> partials at the root open no transaction, submit no operation, touch no
/// tree and run no loop; and an aspect partial (<c>DocumentStore.Aspect.cs</c>) stays short. A
/// reader who wants how a feature works opens its folder; one who wants what the store offers
/// reads the root.
/// </summary>
public sealed partial class DocumentStoreFacadeTests
{
    /// <summary>Lines an aspect partial may have: its members' doc comments and one-line bodies.</summary>
    private const int MaxAspectLines = 100;

    /// <summary>
    /// Partials whose logic has not moved into its folder, each with where it goes. Remove an entry
    /// once its file passes. Empty: every partial is a façade.
    /// </summary>
    private static readonly Dictionary<string, string> NotYetMoved = new(StringComparer.Ordinal);

    [Fact]
    public void DocumentStore_partials_at_the_root_delegate_to_their_folders()
    {
        var root = Path.Combine(RepositoryRoot.Find(), "Voron.Documents");
        var sources = Partials(root).Where(s => !NotYetMoved.ContainsKey(s.Path)).ToList();

        var problems = Problems(sources);

        Assert.NotEmpty(sources);
        Assert.True(problems.Count == 0,
            "The DocumentStore partials at the root of Voron.Documents are façades: move the logic, its state and its rules into the "
            + "folder of its concern and call it from here:\n" + string.Join('\n', problems));
    }

    [Fact]
    public void Every_exempt_partial_exists_and_still_needs_its_exemption()
    {
        var root = Path.Combine(RepositoryRoot.Find(), "Voron.Documents");
        var partials = Partials(root).ToDictionary(s => s.Path, StringComparer.Ordinal);

        var stale = NotYetMoved.Keys.Where(name => !partials.TryGetValue(name, out var source) || Problems([source]).Count == 0).ToList();

        Assert.True(stale.Count == 0, "Remove these from NotYetMoved: gone, or façades now:\n" + string.Join('\n', stale));
    }

    [Fact]
    public void Loops_and_transactions_are_reported_with_line_and_comments_and_strings_are_not()
    {
        var source = new SourceText("DocumentStore.Sample.cs", """"
            // for (var i = 0; i < n; i++) in a comment: not code
            /* while (true) { env.BeginRead(); } */
            public int Count() => Run("foreach (var x in y) BeginWrite(", '{', @"do { } ""OpenTree("" ");
            public void Walk()
            {
                foreach (var name in names)
                {
                    using var read = Environment.BeginRead();
                }

                var raw = $$"""
                    while (x) {{y}}
                    """;
                do
                {
                } while (false);
            }
            """");

        var problems = Problems([source]);

        Assert.Equal([
            "DocumentStore.Sample.cs:6: a loop (foreach): loops run in the folder's type",
            "DocumentStore.Sample.cs:8: a transaction or tree (BeginRead): transactions and trees are the folder's",
            "DocumentStore.Sample.cs:14: a loop (do): loops run in the folder's type",
            "DocumentStore.Sample.cs:16: a loop (while): loops run in the folder's type",
        ], problems);
    }

    [Fact]
    public void Long_aspect_partial_is_reported_and_the_main_file_is_not()
    {
        var body = string.Concat(Enumerable.Repeat("    // a line\n", MaxAspectLines + 1));

        var problems = Problems([new SourceText("DocumentStore.Long.cs", body), new SourceText("DocumentStore.cs", body)]);

        Assert.Equal([$"DocumentStore.Long.cs: {MaxAspectLines + 1} lines, above {MaxAspectLines} for an aspect partial"], problems);
    }

    /// <summary>DocumentStore.cs and every DocumentStore.Aspect.cs at the root of <paramref name="root"/>, by file name.</summary>
    private static List<SourceText> Partials(string root) =>
        [.. Directory.EnumerateFiles(root, "DocumentStore*.cs")
            .Select(Path.GetFileName)
            .Where(name => name == "DocumentStore.cs" || name!.StartsWith("DocumentStore.", StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)
            .Select(name => new SourceText(name!, File.ReadAllText(Path.Combine(root, name!))))];

    /// <summary>Each loop, transaction or tree access in the code (not the comments or strings) and each aspect partial over the size: "file:line: what".</summary>
    private static List<string> Problems(IEnumerable<SourceText> sources)
    {
        var problems = new List<string>();
        foreach (var source in sources)
        {
            var text = source.Text.Replace("\r\n", "\n", StringComparison.Ordinal);
            var lines = text.Count(c => c == '\n') + (text.EndsWith('\n') ? 0 : 1); // as wc -l counts, and a last line without its break
            if (source.Path != "DocumentStore.cs" && lines > MaxAspectLines)
            {
                problems.Add($"{source.Path}: {lines} lines, above {MaxAspectLines} for an aspect partial");
            }

            var code = CodeOnly(text).Split('\n');
            for (var i = 0; i < code.Length; i++)
            {
                foreach (Match loop in Loop().Matches(code[i]))
                {
                    problems.Add($"{source.Path}:{i + 1}: a loop ({loop.Groups["keyword"].Value}): loops run in the folder's type");
                }

                foreach (Match access in Access().Matches(code[i]))
                {
                    problems.Add($"{source.Path}:{i + 1}: a transaction or tree ({access.Groups["member"].Value}): transactions and trees are the folder's");
                }
            }
        }

        return problems;
    }

    /// <summary>
    /// <paramref name="text"/> with its comments and the contents of its string and character
    /// literals blanked (line breaks kept, so lines keep their numbers). Interpolation holes count
    /// as literal text: a façade's messages hold no loops.
    /// </summary>
    private static string CodeOnly(string text)
    {
        var code = new StringBuilder(text.Length);
        var i = 0;
        void Blank(int end)
        {
            for (; i < end && i < text.Length; i++)
            {
                code.Append(text[i] == '\n' ? '\n' : ' ');
            }
        }

        while (i < text.Length)
        {
            var rest = text.AsSpan(i);
            if (rest.StartsWith("//"))
            {
                var end = text.IndexOf('\n', i);
                Blank(end < 0 ? text.Length : end);
            }
            else if (rest.StartsWith("/*"))
            {
                var end = text.IndexOf("*/", i + 2, StringComparison.Ordinal);
                Blank(end < 0 ? text.Length : end + 2);
            }
            else if (RawString().Match(text, i) is { Success: true } raw && raw.Index == i)
            {
                var quotes = raw.Groups["quotes"].Value;
                var end = text.IndexOf(quotes, i + raw.Length, StringComparison.Ordinal);
                Blank(end < 0 ? text.Length : end + quotes.Length);
            }
            else if (rest.StartsWith("@\"") || rest.StartsWith("$@\"") || rest.StartsWith("@$\""))
            {
                var end = text.IndexOf('"', i) + 1;
                while (end < text.Length && !(text[end] == '"' && (end + 1 == text.Length || text[end + 1] != '"')))
                {
                    end += text[end] == '"' ? 2 : 1;
                }

                Blank(end + 1);
            }
            else if (rest[0] is '"' or '\'' || rest.StartsWith("$\""))
            {
                var quote = rest[0] == '$' ? '"' : rest[0];
                var end = text.IndexOf(quote, i) + 1;
                while (end < text.Length && text[end] != quote && text[end] != '\n')
                {
                    end += text[end] == '\\' ? 2 : 1;
                }

                Blank(end + 1);
            }
            else
            {
                code.Append(text[i]);
                i++;
            }
        }

        return code.ToString();
    }

    [GeneratedRegex(@"(?<![A-Za-z0-9_.@])(?<keyword>for|foreach|while|do)(?=\s*[({]|\s*$)", RegexOptions.Multiline)]
    private static partial Regex Loop();

    [GeneratedRegex(@"(?<![A-Za-z0-9_])(?<member>BeginRead|BeginWrite|ExecuteAsync|OpenTree|CreateTree|DeleteTree|Iterate)\s*\(")]
    private static partial Regex Access();

    [GeneratedRegex("\\G\\$*(?<quotes>\"{3,})")]
    private static partial Regex RawString();
}
