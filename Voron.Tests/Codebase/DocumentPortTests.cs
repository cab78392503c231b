using System.Text.RegularExpressions;

namespace Voron.Tests.Codebase;

/// <summary>
/// WP1: every door writes documents through one write port (Voron.Documents/Storage/WritePort.cs),
/// so the rules of a write (the size limit, the record, the expiry, the id counters, the index
/// entries) are coded once. A second place that builds a PreparedWrite would be a second copy of
/// those rules, free to drift.
/// </summary>
public sealed partial class DocumentPortTests
{
    private const string Port = "Voron.Documents/Storage/WritePort.cs";

    [Fact]
    public void A_PreparedWrite_is_built_only_by_the_write_port()
    {
        var root = RepositoryRoot.Find();

        var builders = Builders(root, Products(root)).Where(b => !b.StartsWith(Port + ":", StringComparison.Ordinal)).ToList();

        Assert.True(builders.Count == 0,
            $"These lines build a PreparedWrite outside the write port; add what they need to {Port} and call it:\n" + string.Join('\n', builders));
    }

    [Fact]
    public void The_write_port_is_found_building_writes()
    {
        var root = RepositoryRoot.Find();

        Assert.Contains(Builders(root, ["Voron.Documents"]), b => b.StartsWith(Port + ":", StringComparison.Ordinal));
    }

    /// <summary>
    /// RP1: the SQL module reads stored documents through the documents' read port, never through
    /// the store's trees or the record format, so a change to either stays inside Voron.Documents.
    /// </summary>
    [Fact]
    public void The_SQL_module_reads_documents_only_through_the_read_port()
    {
        var root = RepositoryRoot.Find();
        var sql = Products(root).Where(p => p.StartsWith("Voron.SqliteVfs", StringComparison.Ordinal)).ToList();

        var reaches = Matches(root, sql, StoreInternals());

        Assert.NotEmpty(sql);
        Assert.True(reaches.Count == 0,
            "These lines of the SQL module open the store's trees or read its records; read through Voron.Documents/Storage/ReadPort.cs instead:\n" + string.Join('\n', reaches));
    }

    [Fact]
    public void Every_shape_of_building_one_is_found()
    {
        using var directory = new TempDirectory();
        Directory.CreateDirectory(directory.Combine("Lib"));
        File.WriteAllText(directory.Combine("Lib/A.cs"), """
            class A
            {
                object X() => new PreparedWrite { Id = "a" };
                PreparedWrite Y() => new() { Id = "b" };
                PreparedWrite Z(string id) =>
                    new() { Id = id };
                void W() { PreparedWrite w = new() { Id = "c" }; }
                void V() { var p = new PreparedWrite(); }
                static bool IsDelete(PreparedWrite write) => write.Record == null;
                PreparedWrite[] Many(int n) => new PreparedWrite[n];
            }
            """);

        var builders = Builders(directory.Path, ["Lib"]);

        Assert.Equal(["Lib/A.cs:3", "Lib/A.cs:4", "Lib/A.cs:5", "Lib/A.cs:7", "Lib/A.cs:8"], builders.Select(b => b[..b.IndexOf(' ', StringComparison.Ordinal)]));
    }

    private static List<string> Products(string root) => ProductSources.Projects(root);

    /// <summary>
    /// Each place in the projects' .cs files (build output left out) that builds a PreparedWrite,
    /// as <c>file:line text</c>: <c>new PreparedWrite</c>, or a target-typed <c>new()</c> whose
    /// target is declared a PreparedWrite (a local, a field, or what a method returns).
    /// </summary>
    private static List<string> Builders(string root, IEnumerable<string> projects) => Matches(root, projects, Building());

    /// <summary>Each match of <paramref name="pattern"/> in the projects' .cs files (build output left out), as <c>file:line text</c>.</summary>
    private static List<string> Matches(string root, IEnumerable<string> projects, Regex pattern)
    {
        var found = new List<string>();
        foreach (var (relative, path) in ProductSources.Files(root, projects))
        {
            var text = File.ReadAllText(path);
            foreach (var match in pattern.Matches(text).Cast<Match>())
            {
                var line = text.AsSpan(0, match.Index).Count('\n') + 1;
                found.Add($"{relative}:{line} {text.Split('\n')[line - 1].Trim()}");
            }
        }

        return found;
    }

    // "new PreparedWrite {" or "new PreparedWrite(" (an object creation; an array's "new
    // PreparedWrite[n]" builds none), or "PreparedWrite name = new(" and
    // "PreparedWrite Name(...) => new(" (target-typed), across line breaks.
    [GeneratedRegex(@"\bnew\s+PreparedWrite\s*[({]|\bPreparedWrite\??\s+\w+\s*(=|\([^()]*\)\s*=>)\s*new\s*\(")]
    private static partial Regex Building();

    // The store's trees opened or walked, or its record format read, from outside Voron.Documents.
    [GeneratedRegex(@"\b(DocumentTrees|DocumentRecord|RecordHeader)\b|\.(OpenTree|CreateTree|Iterate)\s*\(")]
    private static partial Regex StoreInternals();
}
