using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace Voron.Tests.Codebase;

/// <summary>
/// DH1: Voron.SqliteVfs is the page layer and references Voron.Core only; SQL over documents
/// (voron_docs) is Voron.SqliteVfs.Documents, attached through the document hook. A SQL-only
/// user does not ship the document store. A reference to Voron.Documents in the project file, a
/// use of it in a source file or in the built assembly fails here.
/// </summary>
public sealed partial class SqliteVfsLayeringTests
{
    private const string Project = "Voron.SqliteVfs";

    [Fact]
    public void The_SqliteVfs_project_references_Voron_Core_and_no_other_project()
    {
        var root = RepositoryRoot.Find();
        var references = ProjectReferences(File.ReadAllText(Path.Combine(root, Project, $"{Project}.csproj")));

        Assert.Equal(["Voron.Core"], references);
    }

    [Fact]
    public void No_SqliteVfs_source_file_uses_Voron_Documents_in_code()
    {
        var root = RepositoryRoot.Find();
        var sources = ProductSources.Files(root, [Project])
            .Select(f => new SourceText(f.Relative, File.ReadAllText(f.Path)))
            .ToList();

        var found = DocumentUses(sources);

        Assert.NotEmpty(sources);
        Assert.True(found.Count == 0,
            "Voron.SqliteVfs names Voron.Documents (give Voron.SqliteVfs.Documents a member on the document hook, Databases/IDocumentHook.cs, instead):\n" + string.Join('\n', found));
    }

    [Fact]
    public void The_built_SqliteVfs_assembly_does_not_reference_Voron_Documents()
    {
        var referenced = typeof(SqliteVfs.VoronSqlite).Assembly.GetReferencedAssemblies().Select(a => a.Name).ToList();

        Assert.Contains("Voron.Core", referenced);
        Assert.DoesNotContain("Voron.Documents", referenced);
        Assert.DoesNotContain("Voron.SqliteVfs.Documents", referenced);
    }

    [Fact]
    public void A_project_reference_or_a_use_in_code_is_reported_and_a_comment_or_the_documents_namespace_is_not()
    {
        var project = """
            <Project><ItemGroup>
              <ProjectReference Include="..\Voron.Core\Voron.Core.csproj" />
              <ProjectReference Include="..\Voron.Documents\Voron.Documents.csproj" />
            </ItemGroup></Project>
            """;
        Assert.Equal(["Voron.Core", "Voron.Documents"], ProjectReferences(project));

        var sources = new[]
        {
            new SourceText("A/One.cs", "using Voron.Documents;\nnamespace Voron.SqliteVfs.Documents;\n"),
            new SourceText("B/Two.cs", "// Voron.Documents' write port\nvar s = \"Voron.Documents\";\nif (e is Voron.Documents.ConcurrencyException) { }\n"),
            new SourceText("C/Three.cs", "using Voron.SqliteVfs.Documents;\nglobal using Voron.Documents.Storage;\n"),
        };

        Assert.Equal(["A/One.cs:1", "B/Two.cs:3", "C/Three.cs:2"], DocumentUses(sources));
    }

    /// <summary>The file names (without .csproj) of a project file's project references.</summary>
    private static List<string> ProjectReferences(string project) =>
        [.. XDocument.Parse(project).Descendants("ProjectReference")
            .Select(r => Path.GetFileNameWithoutExtension(((string)r.Attribute("Include")!).Replace('\\', '/')))];

    /// <summary>Each line that names the Voron.Documents namespace outside comments and string literals, as "file:line".</summary>
    private static List<string> DocumentUses(IEnumerable<SourceText> sources) => ProductSources.UsesInCode(sources, DocumentsNamespace());

    [GeneratedRegex(@"(?<![\w.])Voron\.Documents\b")]
    private static partial Regex DocumentsNamespace();
}
