namespace Voron.Tests.Readme;

/// <summary>
/// The README's C# blocks, read from README.md at test time and compiled with Roslyn exactly as
/// written, as the Program.cs of a new project (<see cref="SnippetCompiler"/>): every block is a
/// program that compiles, or is marked <c>&lt;!-- fragment --&gt;</c> on the line before its
/// fence. The quick starts are programs, and the Core, Documents and SQL ones run, on a temporary
/// directory: the one substitution is the path string, each asserted to occur exactly once.
/// </summary>
/// <remarks>
/// Issue 28, defect 9: the Documents quick start did not compile as pasted (its type declarations
/// came before the top-level statements, and <c>cancellationToken</c> was never declared), and no
/// test noticed because the tests ran a hand-made copy of it. These tests compile the README's own
/// text. Blocks are chosen by heading, never by line number, so sections can move to docs/ pages:
/// pass that page's path to <see cref="MarkdownCodeBlocks.Read"/>.
/// </remarks>
public sealed class ReadmeCodeBlockTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public static TheoryData<int> CSharpBlocks()
    {
        var data = new TheoryData<int>();
        foreach (var block in MarkdownCodeBlocks.Read(MarkdownCodeBlocks.FindReadme()).Where(b => b.IsCSharp))
        {
            data.Add(block.Index);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(CSharpBlocks))]
    public void Every_csharp_block_compiles_as_a_program_or_is_marked_a_fragment(int index)
    {
        var block = MarkdownCodeBlocks.Read(MarkdownCodeBlocks.FindReadme())[index];
        if (block.Fragment)
        {
            return; // a piece of a larger program, marked as such in the README
        }

        SnippetCompiler.Compile(block.Code, $"README {block}");
    }

    [Theory]
    [InlineData("Voron.Core quick start")]
    [InlineData("Voron.Documents quick start")]
    [InlineData("Use it from ASP.NET Core")]
    [InlineData("SQL on Voron (Voron.SqliteVfs) quick start")]
    public void Quick_starts_are_programs_not_fragments(string heading)
    {
        var blocks = MarkdownCodeBlocks.CSharpUnder(MarkdownCodeBlocks.FindReadme(), heading);

        Assert.NotEmpty(blocks);
        Assert.False(blocks[0].Fragment, $"The first C# block under '{heading}' is the quick start a user pastes: it must compile as written, not be marked a fragment.");
    }

    [Fact]
    public async Task Core_quick_start_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("store");

        await RunAsync("Voron.Core quick start", ("/var/lib/myapp/store", path));

        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(path));
        using var read = env.BeginRead();
        Assert.True(read.OpenTree("users")!.TryGet("users/1"u8, out _));
    }

    [Fact]
    public async Task Documents_quick_start_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("docs");

        await RunAsync("Voron.Documents quick start", ("/var/lib/myapp/docs", path));

        await using var store = Voron.Documents.DocumentStore.Open(new Voron.Documents.DocumentStoreOptions { Path = path });
        Assert.Equal(10_002, store.CheckIntegrity().Documents); // Ada, the raw event and the 10,000 imported users
    }

    [Fact]
    public async Task Sql_quick_start_runs_as_written_on_a_temporary_directory()
    {
        var path = _directory.Combine("sql");

        await RunAsync("SQL on Voron (Voron.SqliteVfs) quick start", ("/var/lib/myapp/store", path));

        Assert.True(File.Exists(Path.Combine(path, "voron.lock")));
    }

    /// <summary>Runs the first C# block under <paramref name="heading"/>, each path string replaced once.</summary>
    private static async Task RunAsync(string heading, params (string From, string To)[] paths)
    {
        var block = MarkdownCodeBlocks.CSharpUnder(MarkdownCodeBlocks.FindReadme(), heading)[0];
        var code = block.Code;
        foreach (var (from, to) in paths)
        {
            var quoted = $"\"{from}\"";
            Assert.True(code.Split(quoted).Length == 2, $"README {block}: expected the path {quoted} exactly once.");
            code = code.Replace(quoted, $"\"{to}\"", StringComparison.Ordinal);
        }

        await SnippetCompiler.RunAsync(code, $"README {block}");
    }

    public void Dispose() => _directory.Dispose();
}
