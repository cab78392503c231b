namespace Voron.Tests.Readme;

/// <summary>
/// The README is a front page: what the project is and promises, how an app takes the libraries,
/// the two set-up commands, the comparison's ratios, the quick starts, and one pointer per subject
/// to its docs/ page. Detail grows; these tests keep it on the pages made for it.
/// </summary>
public sealed class FrontPageTests
{
    /// <summary>The most lines the README may have; past it, a section's detail belongs in docs/.</summary>
    public const int MaxReadmeLines = 250;

    [Fact]
    public void The_readme_has_at_most_250_lines()
    {
        var lines = File.ReadAllLines(MarkdownCodeBlocks.FindReadme()).Length;

        Assert.True(
            lines <= MaxReadmeLines,
            $"README.md has {lines} lines, more than {MaxReadmeLines}: it is the front page. Move the detail into the docs/ page of its subject " +
            "(docs/README.md lists them; docs/results/latest.md holds the figures) and leave a line or two in the README that links to it.");
    }

    [Fact]
    public void The_readme_says_how_to_use_the_libraries_before_the_set_up_commands()
    {
        var headings = File.ReadAllLines(MarkdownCodeBlocks.FindReadme()).Where(l => l.StartsWith("## ", StringComparison.Ordinal)).ToList();

        var use = headings.IndexOf("## Use it in a project");
        var setUp = headings.IndexOf("## Set up");
        Assert.True(use >= 0, "README.md has no '## Use it in a project' section: how an app references the libraries (a project reference or a local package feed) and installs the tool.");
        Assert.True(setUp >= 0, "README.md has no '## Set up' section.");
        Assert.True(use < setUp, "README.md: '## Use it in a project' comes before '## Set up', so a reader who wants to use the libraries meets that first.");
    }

    [Fact]
    public void The_set_up_commands_are_the_two_that_ci_and_a_new_clone_run()
    {
        var blocks = MarkdownCodeBlocks.Read(MarkdownCodeBlocks.FindReadme()).Where(b => b.Heading == "Set up").ToList();

        var commands = Assert.Single(blocks).Code.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => l.Split('#')[0].Trim())
            .ToList();
        Assert.Equal(["dotnet run -c Release --project Voron.LoadTests", "dotnet test"], commands);
    }
}
