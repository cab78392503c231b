using System.Text.RegularExpressions;

namespace Voron.Tests.Codebase;

/// <summary>
/// Comments keep design, not history (docs/testing.md): the tracker is not in the
/// repository, so a citation of one of its numbers tells the reader nothing they can follow. Say
/// the rule id, the behaviour or the reason instead; the history belongs in commit messages.
/// </summary>
public sealed partial class SourceCommentTests
{
    [Fact]
    public void Source_comments_do_not_cite_tracker_issue_numbers()
    {
        var sources = InvariantIds.ReadRepository(RepositoryRoot.Find())
            .Where(s => s.Path.EndsWith(".cs", StringComparison.Ordinal));

        var citations = TrackerCitations(sources);

        Assert.True(citations.Count == 0,
            "Tracker issue numbers in the sources (the tracker is not in the repository: say the rule, the behaviour or the reason):\n"
            + string.Join('\n', citations));
    }

    [Fact]
    public void Tracker_citation_is_reported_with_file_and_line_and_generic_words_are_not()
    {
        // Built from parts, so this file holds no citation of its own.
        var word = "Iss" + "ue";
        var sources = new[]
        {
            new SourceText("A/One.cs", $"// fine: an {word.ToLowerInvariant()} with no number\n// {word} 17, defect 3: bad\n"),
            new SourceText("B/Two.cs", $"var s = \"see {word.ToLowerInvariant()}s #4\";\n// {word}Tracker 5 is a name, not a citation\n"),
        };

        var citations = TrackerCitations(sources);

        Assert.Equal([$"A/One.cs:2: {word} 17", $"B/Two.cs:1: {word.ToLowerInvariant()}s #4"], citations);
    }

    /// <summary>Each citation of a tracker number as "file:line: text", in file and line order.</summary>
    private static List<string> TrackerCitations(IEnumerable<SourceText> sources)
    {
        var found = new List<string>();
        foreach (var source in sources)
        {
            var lines = source.Text.Split('\n');
            for (var i = 0; i < lines.Length; i++)
            {
                foreach (Match match in Citation().Matches(lines[i]))
                {
                    found.Add($"{source.Path}:{i + 1}: {match.Value}");
                }
            }
        }

        return found;
    }

    [GeneratedRegex(@"\b[Ii]ssues? #?\d+")]
    private static partial Regex Citation();
}
