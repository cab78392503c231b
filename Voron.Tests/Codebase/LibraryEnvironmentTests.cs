namespace Voron.Tests.Codebase;

/// <summary>
/// A library takes its settings from what its caller passes (the options), never from the
/// process's environment: a variable set for one program (a benchmark's A/B switch, a test's
/// knob) would otherwise change every store the process opens, unseen by the code that opened it.
/// A program that needs an internal switch sets the option in code. The libraries are the projects
/// of Voron.slnx's products folder; tests, the test machinery, the benchmark and diagnostics
/// programs, the tool and the samples may read the environment.
/// </summary>
public sealed class LibraryEnvironmentTests
{
    private const string Read = "GetEnvironmentVariable";

    [Fact]
    public void Libraries_do_not_read_environment_variables()
    {
        var root = RepositoryRoot.Find();

        var reads = Reads(root, LibraryProjects(root));

        Assert.True(reads.Count == 0,
            "These library lines read an environment variable; take the setting from the options the caller passes instead:\n" + string.Join('\n', reads));
    }

    [Fact]
    public void The_libraries_are_the_products_folder_of_the_solution()
    {
        var projects = LibraryProjects(RepositoryRoot.Find());

        Assert.Contains("Voron.Core", projects);
        Assert.Contains("Voron.Documents", projects);
        Assert.Contains("Voron.Documents.AspNetCore", projects);
        Assert.Contains("Voron.SqliteVfs", projects);
        Assert.DoesNotContain(projects, p => p.Contains("Test", StringComparison.Ordinal) || p.Contains("Tool", StringComparison.Ordinal));
    }

    [Fact]
    public void A_read_is_reported_with_its_file_and_line_and_build_output_is_skipped()
    {
        using var directory = new TempDirectory();
        Directory.CreateDirectory(directory.Combine("Lib/Sub"));
        Directory.CreateDirectory(directory.Combine("Lib/obj"));
        File.WriteAllText(directory.Combine("Lib/Sub/Options.cs"), "class A\n{\n    bool B { get; } = System.Environment.GetEnvironmentVariable(\"X\") != \"0\";\n}\n");
        File.WriteAllText(directory.Combine("Lib/obj/Generated.cs"), "class G { string? S = System.Environment.GetEnvironmentVariable(\"Y\"); }\n");
        File.WriteAllText(directory.Combine("Lib/Clean.cs"), "class C { }\n");

        var reads = Reads(directory.Path, ["Lib"]);

        Assert.Equal(["Lib/Sub/Options.cs:3"], reads.Select(r => r[..r.IndexOf(' ', StringComparison.Ordinal)]));
    }

    private static List<string> LibraryProjects(string root) => ProductSources.Projects(root);

    /// <summary>Every line of the projects' .cs files (build output left out) that reads the environment, as <c>file:line text</c>.</summary>
    private static List<string> Reads(string root, IEnumerable<string> projects)
    {
        var reads = new List<string>();
        foreach (var (relative, path) in ProductSources.Files(root, projects))
        {
            var lines = File.ReadAllLines(path);
            for (var i = 0; i < lines.Length; i++)
            {
                if (lines[i].Contains(Read, StringComparison.Ordinal))
                {
                    reads.Add($"{relative}:{i + 1} {lines[i].Trim()}");
                }
            }
        }

        return reads;
    }
}
