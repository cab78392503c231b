namespace Voron.Tests.Readme;

/// <summary>One fenced code block of a Markdown file.</summary>
/// <param name="Index">Its position among the file's blocks of any language (0-based).</param>
/// <param name="Line">The line of its opening fence (1-based), for messages only: tests select blocks by heading, never by line.</param>
/// <param name="Heading">The nearest heading above it, without the #s.</param>
/// <param name="Language">The fence's info string (<c>csharp</c>, <c>sh</c>, ...).</param>
/// <param name="Fragment">Whether the line above the fence is <c>&lt;!-- fragment --&gt;</c>: a piece of a larger program, not meant to compile alone.</param>
/// <param name="Code">The text between the fences, exactly.</param>
internal sealed record CodeBlock(int Index, int Line, string Heading, string Language, bool Fragment, string Code)
{
    public bool IsCSharp => Language is "csharp" or "cs" or "c#";

    public override string ToString() => $"block {Index} (line {Line}, under '{Heading}')";
}

/// <summary>
/// Reads the fenced code blocks of a Markdown file (the README, or a docs/ page), so that tests
/// compile the documentation's own text rather than a copy that drifts.
/// </summary>
internal static class MarkdownCodeBlocks
{
    /// <summary>The marker, on the line before a fence, of a block that is a fragment (not a whole program).</summary>
    public const string FragmentMarker = "<!-- fragment -->";

    public static IReadOnlyList<CodeBlock> Read(string path)
    {
        var lines = File.ReadAllLines(path);
        var blocks = new List<CodeBlock>();
        var heading = "";
        for (var i = 0; i < lines.Length; i++)
        {
            var line = lines[i];
            if (line.StartsWith('#'))
            {
                heading = line.TrimStart('#').Trim();
                continue;
            }

            // A fence may be indented (a block inside a list item): its lines lose that indentation.
            // Regression: an indented example was never compiled, because only fences at column 0 were read.
            var indent = line.Length - line.TrimStart(' ').Length;
            if (!line.AsSpan(indent).StartsWith("```", StringComparison.Ordinal))
            {
                continue;
            }

            var language = line[(indent + 3)..].Trim();
            var previous = i - 1;
            while (previous >= 0 && string.IsNullOrWhiteSpace(lines[previous]))
            {
                previous--;
            }

            var fragment = previous >= 0 && lines[previous].Trim() == FragmentMarker;
            var start = i;
            var code = new List<string>();
            for (i++; i < lines.Length && !lines[i].TrimStart(' ').StartsWith("```", StringComparison.Ordinal); i++)
            {
                var strip = Math.Min(indent, lines[i].Length - lines[i].TrimStart(' ').Length);
                code.Add(lines[i][strip..]);
            }

            if (i == lines.Length)
            {
                throw new InvalidDataException($"{path}: the code block opened at line {start + 1} is never closed.");
            }

            blocks.Add(new CodeBlock(blocks.Count, start + 1, heading, language, fragment, string.Join('\n', code) + "\n"));
        }

        return blocks;
    }

    /// <summary>The C# blocks under the heading <paramref name="heading"/>, in order.</summary>
    public static IReadOnlyList<CodeBlock> CSharpUnder(string path, string heading) =>
        [.. Read(path).Where(b => b.IsCSharp && b.Heading == heading)];

    /// <summary>
    /// The repository's README.md: the copy beside the test assembly (the project copies it there),
    /// else the first README.md walking up from the assembly's directory.
    /// </summary>
    public static string FindReadme() => Find("README.md");

    /// <summary>
    /// The documentation whose code blocks are tested, as paths from the repository root with
    /// <c>/</c> separators: README.md, then every page under docs/ (the project copies them beside
    /// the test assembly with README.md), sorted.
    /// </summary>
    public static IReadOnlyList<string> DocumentationFiles()
    {
        var root = Path.GetDirectoryName(FindReadme())!;
        var docs = Path.Combine(root, "docs");
        if (!Directory.Exists(docs))
        {
            throw new DirectoryNotFoundException($"No docs/ beside {FindReadme()}: the test project copies docs/**/*.md with README.md.");
        }

        return ["README.md", .. Directory.EnumerateFiles(docs, "*.md", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(root, f).Replace(Path.DirectorySeparatorChar, '/'))
            .Order(StringComparer.Ordinal)];
    }

    /// <summary>A Markdown file of the repository, by its path from the repository root (<c>docs/x.md</c>).</summary>
    public static string Find(string relativePath)
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory != null; directory = directory.Parent)
        {
            var candidate = Path.Combine(directory.FullName, relativePath);
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        throw new FileNotFoundException($"No {relativePath} in {AppContext.BaseDirectory} or any directory above it.");
    }
}
