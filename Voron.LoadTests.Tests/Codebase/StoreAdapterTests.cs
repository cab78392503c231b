using System.Text.RegularExpressions;
using Voron.LoadTests.Capabilities;
using Voron.LoadTests.Capabilities.Documents;
using Voron.LoadTests.Capabilities.Orders;
using Voron.LoadTests.Capabilities.Sql;
using Voron.LoadTests.Stores;

namespace Voron.LoadTests.Tests.Codebase;

/// <summary>
/// One adapter per store, workloads over capabilities (STYLE.md): each store's folder under
/// <c>Voron.LoadTests/Stores/</c> is the only place that opens it, the suites under
/// <c>Experiments/</c> name capabilities and catalogs, never a store's types, and the catalogs
/// read off the adapters keep every report row in place. Sources are read from the repository
/// (Voron.Diagnostics, the one-off diagnostics, lives apart and is not held to this).
/// </summary>
public sealed partial class StoreAdapterTests
{
    /// <summary>The types of <c>Stores/</c> a suite may name: the list of adapters and their interface.</summary>
    private static readonly string[] Allowed = [nameof(StoreAdapters), nameof(IStoreAdapter)];

    /// <summary>Text that opens or configures a store, and the one folder of <c>Voron.LoadTests/</c> it may appear in (in code, not in a comment).</summary>
    private static readonly (string Text, string Folder)[] Openings =
    [
        ("PRAGMA synchronous", "Stores/Sqlite/"),
        ("PRAGMA journal_mode", "Stores/Sqlite/"),
        ("new LiteDatabase", "Stores/LiteDb/"),
        ("ConnectionType.", "Stores/LiteDb/"),
        ("new LightningEnvironment", "Stores/Lmdb/"),
        ("DurabilityMode.", "Stores/Voron/"),
    ];

    [Fact]
    public void Suites_name_no_type_of_a_store_only_the_adapters_and_the_capabilities()
    {
        var sources = Sources();
        var storeTypes = DeclaredTypes(sources.Where(s => s.Path.StartsWith("Stores/", StringComparison.Ordinal))).Except(Allowed).ToHashSet();
        var suites = sources.Where(s => s.Path.StartsWith("Experiments/", StringComparison.Ordinal)).ToList();

        var found = StoreTypesNamed(suites, storeTypes);

        Assert.NotEmpty(suites);
        Assert.Contains("SqliteDocumentEngine", storeTypes);
        Assert.True(found.Count == 0,
            "A suite names a store's type (pick it from a catalog of its capability instead: docs/experiments.md, \"Adding a peer\"):\n" + string.Join('\n', found));
    }

    [Fact]
    public void A_store_type_named_in_code_is_reported_and_one_in_a_comment_or_a_namespace_import_of_capabilities_is_not()
    {
        var suites = new[]
        {
            new SourceFile("Experiments/A.cs", "// a SqliteDocumentEngine in a comment\nengines.Add(new SqliteDocumentEngine(directory));\n"),
            new SourceFile("Experiments/B.cs", "using Voron.LoadTests.Stores.Sqlite;\nvar kinds = DocumentEngineCatalog.All;\n"),
            new SourceFile("Experiments/C.cs", "using Voron.LoadTests.Capabilities;\n/// <see cref=\"SqliteStore\"/>\nvar all = StoreAdapters.All;\n"),
        };

        var found = StoreTypesNamed(suites, ["SqliteDocumentEngine", "SqliteStore"]);

        Assert.Equal(["Experiments/A.cs:2: SqliteDocumentEngine", "Experiments/B.cs:1: Voron.LoadTests.Stores.Sqlite"], found);
    }

    [Fact]
    public void Each_store_is_opened_and_configured_only_in_its_own_folder()
    {
        var found = new List<string>();
        foreach (var source in Sources())
        {
            var lines = Code(source.Text);
            for (var i = 0; i < lines.Length; i++)
            {
                found.AddRange(Openings
                    .Where(o => lines[i].Contains(o.Text, StringComparison.Ordinal) && !source.Path.StartsWith(o.Folder, StringComparison.Ordinal))
                    .Select(o => $"{source.Path}:{i + 1}: '{o.Text}' outside {o.Folder}"));
            }
        }

        Assert.True(found.Count == 0, "A store is opened or configured outside its folder (open it through the folder's store type):\n" + string.Join('\n', found));
    }

    [Fact]
    public void Stores_are_listed_once_in_report_order()
    {
        Assert.Equal(["voron", "sqlite", "litedb", "lmdb"], StoreAdapters.All.Select(a => a.Name));
    }

    [Fact]
    public void Catalogs_read_off_the_adapters_keep_every_row_name_in_order()
    {
        Assert.Equal(["voron", "voron-portable", "sqlite", "sqlite-mmap", "lmdb"], KvEngineCatalog.All.Select(k => k.Name));
        Assert.Equal(["voron", "voron-compact", "voron-portable", "sqlite", "sqlite-mmap", "lmdb"], KvEngineCatalog.WithCompaction.Select(k => k.Name));
        Assert.Equal(["voron", "voron-sealed", "voron-portable", "sqlite", "sqlite-mmap", "lmdb"], KvEngineCatalog.WithSealed.Select(k => k.Name));
        Assert.Equal(["voron", "voron-kv", "sqlite", "litedb"], DocumentEngineCatalog.All.Select(k => k.Name));
        Assert.Equal(["voron", "voron-sealed", "voron-kv", "sqlite", "litedb"], DocumentEngineCatalog.WithSealed.Select(k => k.Name));
        Assert.Equal(["documents", "sql-voron", "sql-docs", "sqlite", "litedb"], OrderPaths.All);
        Assert.Equal(["documents", "documents-sealed", "sql-voron", "sql-voron-sealed", "sql-docs", "sql-docs-sealed", "sqlite", "litedb"], OrderPaths.WithSealed);
        Assert.Equal(
            ["voron-unmerged", "voron-merged", "voron-merged-async", "voron-portable-unmerged", "voron-portable-merged-async", "sqlite", "sqlite-batched", "lmdb", "lmdb-batched"],
            MergeExperiment.ClosedModes);
        Assert.Equal(["voron-merged", "voron-merged-async", "sqlite-batched", "lmdb-batched"], MergeExperiment.OpenModes);
        Assert.Equal(["voron", "sqlite-wal", "sqlite-rollback"], SqlEngines.All);
    }

    [Fact]
    public void Each_store_describes_its_library_and_what_to_say_when_it_cannot_load()
    {
        Assert.All(StoreAdapters.All, a => Assert.Equal(a.Name is "sqlite" or "lmdb", a.MissingLibraryNote.Length > 0));
        Assert.Equal(["SQLite skipped: the native e_sqlite3 library could not be loaded", "SQLite (mmap) skipped: the native e_sqlite3 library could not be loaded",
                      "LMDB skipped: the liblmdb that LightningDB ships could not be loaded on this machine"],
            KvEngineCatalog.All.Select(k => k.MissingLibraryNote).Where(n => n.Length > 0));
    }

    internal sealed record SourceFile(string Path, string Text);

    /// <summary>Every C# file of Voron.LoadTests, its path relative to the project.</summary>
    private static List<SourceFile> Sources()
    {
        var project = Path.Combine(RepositoryRoot.Find(), "Voron.LoadTests");
        return [.. Directory.EnumerateFiles(project, "*.cs", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(project, f).Replace('\\', '/'))
            .Where(p => !p.StartsWith("obj/", StringComparison.Ordinal) && !p.StartsWith("bin/", StringComparison.Ordinal))
            .Select(p => new SourceFile(p, File.ReadAllText(Path.Combine(project, p))))];
    }

    /// <summary>The top-level types the files declare (nested types are their owners' business).</summary>
    private static IEnumerable<string> DeclaredTypes(IEnumerable<SourceFile> sources) =>
        sources.SelectMany(s => TopLevelType().Matches(s.Text).Select(m => m.Groups["name"].Value)).Distinct();

    /// <summary>"path:line: name" for each line of code that names one of <paramref name="types"/> or imports a store's namespace.</summary>
    internal static List<string> StoreTypesNamed(IEnumerable<SourceFile> sources, IReadOnlyCollection<string> types)
    {
        var found = new List<string>();
        foreach (var source in sources)
        {
            var lines = Code(source.Text);
            for (var i = 0; i < lines.Length; i++)
            {
                if (StoreNamespace().Match(lines[i]) is { Success: true } import)
                {
                    found.Add($"{source.Path}:{i + 1}: {import.Value}");
                }

                found.AddRange(types.Where(t => Regex.IsMatch(lines[i], $@"\b{t}\b")).Select(t => $"{source.Path}:{i + 1}: {t}"));
            }
        }

        return found;
    }

    /// <summary>The lines with their comments blanked (a type named in a comment is not a use).</summary>
    private static string[] Code(string text) => [.. text.Split('\n').Select(line => line.IndexOf("//", StringComparison.Ordinal) is >= 0 and var at ? line[..at] : line)];

    [GeneratedRegex(@"^(?:internal|public) (?:(?:sealed|static|abstract|readonly|partial) )*(?:class|interface|record struct|record|struct|enum) (?<name>\w+)", RegexOptions.Multiline)]
    private static partial Regex TopLevelType();

    [GeneratedRegex(@"Voron\.LoadTests\.Stores\.\w+")]
    private static partial Regex StoreNamespace();
}
