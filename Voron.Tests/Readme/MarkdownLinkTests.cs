using System.Text.RegularExpressions;

namespace Voron.Tests.Readme;

/// <summary>
/// Every relative link of README.md and of the pages under docs/ leads to a file or folder of the
/// repository, and a link's <c>#anchor</c> to a heading of the page it names; the README links to
/// nothing outside the repository. The README points into the docs/ pages, so links between them
/// are many and a moved or renamed heading must fail here, not in a reader's browser.
/// </summary>
public sealed partial class MarkdownLinkTests
{
    public static TheoryData<string> Files() => [.. MarkdownCodeBlocks.DocumentationFiles()];

    [Theory]
    [MemberData(nameof(Files))]
    public void Every_relative_link_resolves_to_a_file_of_the_repository(string file)
    {
        var root = RepositoryRoot.Find();
        var page = Path.Combine(root, file);
        var broken = BrokenLinks(root, page);

        Assert.True(broken.Count == 0, $"{file}: broken links:\n{string.Join('\n', broken)}");
    }

    [Fact]
    public void The_readme_links_to_nothing_outside_the_repository()
    {
        var root = RepositoryRoot.Find();
        var outside = Links(Path.Combine(root, "README.md"))
            .Where(l => l.Target.Contains("://", StringComparison.Ordinal) || l.Target.StartsWith("mailto:", StringComparison.Ordinal))
            .Select(l => $"line {l.Line}: {l.Target}")
            .ToList();

        Assert.True(outside.Count == 0, $"README.md links outside the repository:\n{string.Join('\n', outside)}");
    }

    [Fact]
    public void A_link_to_a_missing_file_or_heading_is_reported()
    {
        using var directory = new TempDirectory();
        File.WriteAllText(directory.Combine("a.md"), "# A\n\n## Set up\n\n[ok](a.md#set-up) [file](b.md) [heading](a.md#setup) `[code](c.md)`\n\n```md\n[in a block](d.md)\n```\n");

        var broken = BrokenLinks(directory.Path, directory.Combine("a.md"));

        Assert.Equal(["line 5: b.md (no such file)", "line 5: a.md#setup (no heading 'setup' in a.md)"], broken);
    }

    /// <summary>The links of <paramref name="page"/> that do not resolve, one message each.</summary>
    private static List<string> BrokenLinks(string root, string page)
    {
        var broken = new List<string>();
        foreach (var (line, target) in Links(page))
        {
            if (target.Contains("://", StringComparison.Ordinal) || target.StartsWith("mailto:", StringComparison.Ordinal))
            {
                continue; // outside the repository: only the README forbids them
            }

            var hash = target.IndexOf('#');
            var pathPart = hash < 0 ? target : target[..hash];
            var anchor = hash < 0 ? null : target[(hash + 1)..];
            var resolved = pathPart.Length == 0 ? page : Path.GetFullPath(Path.Combine(Path.GetDirectoryName(page)!, Uri.UnescapeDataString(pathPart)));
            var inside = Path.GetRelativePath(root, resolved);
            if (inside.StartsWith("..", StringComparison.Ordinal) || Path.IsPathRooted(inside))
            {
                broken.Add($"line {line}: {target} (outside the repository)");
            }
            else if (!File.Exists(resolved) && !Directory.Exists(resolved))
            {
                broken.Add($"line {line}: {target} (no such file)");
            }
            else if (anchor != null && resolved.EndsWith(".md", StringComparison.Ordinal) && !Anchors(resolved).Contains(anchor))
            {
                broken.Add($"line {line}: {target} (no heading '{anchor}' in {Path.GetFileName(resolved)})");
            }
        }

        return broken;
    }

    /// <summary>The inline links <c>[text](target)</c> of a page, outside code blocks and code spans.</summary>
    private static IEnumerable<(int Line, string Target)> Links(string page)
    {
        var lines = File.ReadAllLines(page);
        var inBlock = false;
        for (var i = 0; i < lines.Length; i++)
        {
            if (lines[i].StartsWith("```", StringComparison.Ordinal))
            {
                inBlock = !inBlock;
                continue;
            }

            if (inBlock)
            {
                continue;
            }

            foreach (Match m in LinkPattern().Matches(CodeSpan().Replace(lines[i], "")))
            {
                yield return (i + 1, m.Groups[1].Value);
            }
        }
    }

    /// <summary>The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered.</summary>
    private static HashSet<string> Anchors(string page)
    {
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        var inBlock = false;
        foreach (var line in File.ReadLines(page))
        {
            if (line.StartsWith("```", StringComparison.Ordinal))
            {
                inBlock = !inBlock;
            }
            else if (!inBlock && line.StartsWith('#'))
            {
                var slug = new StringBuilder();
                foreach (var c in line.TrimStart('#').Trim().ToLowerInvariant())
                {
                    if (char.IsLetterOrDigit(c) || c is '-' or '_')
                    {
                        slug.Append(c);
                    }
                    else if (c == ' ')
                    {
                        slug.Append('-');
                    }
                }

                var anchor = slug.ToString();
                for (var n = 1; !anchors.Add(anchor); n++)
                {
                    anchor = $"{slug}-{n}";
                }
            }
        }

        return anchors;
    }

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex LinkPattern();

    [GeneratedRegex("`[^`]*`")]
    private static partial Regex CodeSpan();
}
