using System.Text.RegularExpressions;

namespace Voron.Tests.Codebase;

/// <summary>
/// Seams, not hubs (STYLE.md): the subsystems under the store are given what they need when they
/// are built (CommitSeams, MergerSeams, FlusherSeams, TransactionSeams, the transaction
/// registry), so nothing below StorageEnvironment points back up to it (StorageEnvironment.cs says
/// so beside the constructor). A type of those folders that names StorageEnvironment in code, not
/// in a comment or a message, fails here.
/// </summary>
public sealed partial class LayeringTests
{
    /// <summary>The folders of Voron.Core below the store. The root types (ReadTransaction, Tree…) and the operations on a whole store (Backup/, Compaction/, Diagnostics/) are above it.</summary>
    private static readonly string[] Below =
    [
        "Allocation", "Compression", "Flushing", "Header", "Journal", "PageFiles", "Paging", "Platform", "Scratch", "Transactions", "Trees",
    ];

    [Fact]
    public void Subsystems_below_the_store_never_name_StorageEnvironment_in_code()
    {
        var sources = InvariantIds.ReadRepository(RepositoryRoot.Find())
            .Where(s => s.Path.EndsWith(".cs", StringComparison.Ordinal)
                        && Below.Any(folder => s.Path.StartsWith($"Voron.Core/{folder}/", StringComparison.Ordinal)))
            .ToList();

        var found = UsesInCode(sources);

        Assert.NotEmpty(sources);
        Assert.True(found.Count == 0,
            "Code below the store names StorageEnvironment (give it a seam with what it needs instead):\n" + string.Join('\n', found));
    }

    [Fact]
    public void A_use_in_code_is_reported_and_one_in_a_comment_or_a_string_is_not()
    {
        var sources = new[]
        {
            new SourceText("A/One.cs", "// StorageEnvironment.Open does this\nprivate readonly StorageEnvironment _environment;\n"),
            new SourceText("B/Two.cs", "/// <summary>see StorageEnvironment</summary>\nthrow new X(\"end them (StorageEnvironment.OldestSnapshotPin)\"); // StorageEnvironment\n"),
        };

        Assert.Equal(["A/One.cs:2"], UsesInCode(sources));
    }

    /// <summary>Each line that names StorageEnvironment outside comments and string literals, as "file:line".</summary>
    private static List<string> UsesInCode(IEnumerable<SourceText> sources) => ProductSources.UsesInCode(sources, Name());

    [GeneratedRegex(@"\bStorageEnvironment\b")]
    private static partial Regex Name();
}
