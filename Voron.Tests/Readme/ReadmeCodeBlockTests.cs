namespace Voron.Tests.Readme;

/// <summary>
/// The C# blocks of README.md and of every docs/ page, read at test time and compiled with Roslyn
/// exactly as written, as the Program.cs of a new project (<see cref="SnippetCompiler"/>): every
/// block is a program that compiles, or is marked <c>&lt;!-- fragment --&gt;</c> on the line before
/// its fence. The quick starts are programs, and the README's Core, Documents and SQL ones and the
/// Documents tour (docs/documents.md) run, on a temporary directory: the one substitution is the
/// path string, each asserted to occur exactly once.
/// </summary>
/// <remarks>
/// Regression: the Documents quick start did not compile as pasted (its type declarations came
/// before the top-level statements, and <c>cancellationToken</c> was never declared), and no test
/// noticed because the tests ran a hand-made copy of it. These tests compile the documentation's
/// own text. Blocks are chosen by file and heading, never by line number (guides move between
/// README.md and the docs/ pages).
/// </remarks>
public sealed class ReadmeCodeBlockTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public static TheoryData<string, int> CSharpBlocks()
    {
        var data = new TheoryData<string, int>();
        foreach (var file in MarkdownCodeBlocks.DocumentationFiles())
        {
            foreach (var block in MarkdownCodeBlocks.Read(MarkdownCodeBlocks.Find(file)).Where(b => b.IsCSharp))
            {
                data.Add(file, block.Index);
            }
        }

        return data;
    }

    [Fact]
    public void The_pages_that_hold_the_guides_have_csharp_blocks()
    {
        var files = MarkdownCodeBlocks.DocumentationFiles();
        foreach (var file in new[] { "README.md", "docs/core.md", "docs/documents.md", "docs/aspnetcore.md" })
        {
            Assert.Contains(file, files);
            Assert.Contains(MarkdownCodeBlocks.Read(MarkdownCodeBlocks.Find(file)), b => b.IsCSharp);
        }
    }

    [Theory]
    [MemberData(nameof(CSharpBlocks))]
    public void Every_csharp_block_compiles_as_a_program_or_is_marked_a_fragment(string file, int index)
    {
        var block = MarkdownCodeBlocks.Read(MarkdownCodeBlocks.Find(file))[index];
        if (block.Fragment)
        {
            return; // a piece of a larger program, marked as such in the page
        }

        SnippetCompiler.Compile(block.Code, $"{file} {block}");
    }

    [Theory]
    [InlineData("README.md", "Key-value (Voron.Core)")]
    [InlineData("README.md", "Documents (Voron.Documents)")]
    [InlineData("README.md", "SQL (Voron.SqliteVfs)")]
    [InlineData("docs/documents.md", "A tour")]
    [InlineData("docs/aspnetcore.md", "A minimal API")]
    [InlineData("docs/core.md", "Platforms")]
    [InlineData("docs/core.md", "Operating a store")]
    [InlineData("docs/sql.md", "SQL over documents (voron_docs)")]
    public void Quick_starts_are_programs_not_fragments(string file, string heading)
    {
        var blocks = MarkdownCodeBlocks.CSharpUnder(MarkdownCodeBlocks.Find(file), heading);

        Assert.NotEmpty(blocks);
        Assert.False(blocks[0].Fragment, $"The first C# block under '{heading}' in {file} is a program a user pastes: it must compile as written, not be marked a fragment.");
    }

    [Fact]
    public async Task Core_quick_start_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("store");

        await RunAsync("README.md", "Key-value (Voron.Core)", ("/var/lib/myapp/store", path));

        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(path));
        using var read = env.BeginRead();
        Assert.True(read.OpenTree("users")!.TryGet("users/1"u8, out _));
    }

    [Fact]
    public async Task Documents_quick_start_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("docs");

        await RunAsync("README.md", "Documents (Voron.Documents)", ("/var/lib/myapp/docs", path));

        await using var store = Voron.Documents.DocumentStore.Open(new Voron.Documents.DocumentStoreOptions { Path = path });
        Assert.Equal(1, store.CheckIntegrity().Documents); // Ada
    }

    [Fact]
    public async Task Documents_tour_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("tour");

        await RunAsync("docs/documents.md", "A tour", ("/var/lib/myapp/docs", path));

        await using var store = Voron.Documents.DocumentStore.Open(new Voron.Documents.DocumentStoreOptions { Path = path });
        Assert.Equal(10_002, store.CheckIntegrity().Documents); // Ada, the raw event and the 10,000 imported users
    }

    [Fact]
    public async Task Sql_quick_start_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("sql");

        await RunAsync("README.md", "SQL (Voron.SqliteVfs)", ("/var/lib/myapp/store", path));

        Assert.True(File.Exists(Path.Combine(path, "voron.lock")));
    }

    /// <summary>Runs the first C# block under <paramref name="heading"/> in <paramref name="file"/>, each path string replaced once.</summary>
    private static async Task RunAsync(string file, string heading, params (string From, string To)[] paths)
    {
        var block = MarkdownCodeBlocks.CSharpUnder(MarkdownCodeBlocks.Find(file), heading)[0];
        var code = block.Code;
        foreach (var (from, to) in paths)
        {
            var quoted = $"\"{from}\"";
            Assert.True(code.Split(quoted).Length == 2, $"{file} {block}: expected the path {quoted} exactly once.");
            code = code.Replace(quoted, $"\"{to}\"", StringComparison.Ordinal);
        }

        await SnippetCompiler.RunAsync(code, $"{file} {block}");
    }

    public void Dispose() => _directory.Dispose();
}
