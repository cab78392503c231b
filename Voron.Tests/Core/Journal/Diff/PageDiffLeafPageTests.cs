using Voron.Journal.Diff;
using Voron.Paging;
using Voron.Tests.Core.Trees;
using Voron.Trees;
using static Voron.Tests.Core.Journal.Diff.DiffCheck;

namespace Voron.Tests.Core.Journal.Diff;

/// <summary>
/// Diff sizes for a realistic update: seven 1 KiB JSON documents in one B+tree leaf, one of them
/// updated in two fields, the page checksum stamped as a commit does.
/// </summary>
public sealed class PageDiffLeafPageTests(ITestOutputHelper output)
{
    private const int Documents = 7;

    private static byte[] Key(int id) => Encoding.ASCII.GetBytes($"users/{id:D4}");

    /// <summary>A JSON document of 1024 bytes plus the nickname's length.</summary>
    private static byte[] Document(int id, int age, string lastLogin, string nickname = "")
    {
        var head = $"{{\"id\":\"users/{id:D4}\",\"name\":\"User Number {id}\",\"nickname\":\"{nickname}\",\"email\":\"user{id}@example.com\"," +
                   $"\"age\":{age},\"balance\":{1000 + (id * 7)}.25,\"lastLogin\":\"{lastLogin}\",\"address\":{{\"street\":\"{id} Main St\"," +
                   $"\"city\":\"Springfield\",\"zip\":\"{10000 + id}\"}},\"tags\":[\"customer\",\"newsletter\"],\"bio\":\"";
        const string tail = "\"}";
        string[] words = ["lorem", "ipsum", "dolor", "sit", "amet", "storage", "engine", "page", "journal", "tree", "value", "commit"];
        var random = new Random(id); // each document's text differs, as real documents' do
        var bio = new StringBuilder();
        while (head.Length + bio.Length + tail.Length < 1024 + nickname.Length)
        {
            bio.Append(words[random.Next(words.Length)]).Append(' ');
        }

        // 1024 bytes without a nickname; a nickname makes the document that much longer.
        var text = head + bio.ToString(0, 1024 + nickname.Length - head.Length - tail.Length) + tail;
        return Encoding.ASCII.GetBytes(text);
    }

    /// <summary>The leaf before and after updating document <paramref name="id"/>, checksums stamped.</summary>
    private static (byte[] Before, byte[] After) UpdateOne(int id, string nickname)
    {
        var store = new DictionaryPageAccess();
        var tree = new BTree(store, default);
        for (var i = 0; i < Documents; i++)
        {
            tree.Put(Key(i), Document(i, 30 + i, "2024-05-01T10:00:00Z"));
        }

        Assert.Equal(1, tree.State.LeafPages);
        var root = tree.State.RootPage;
        PageHeader.StampChecksum(store.RawPage(root));
        var before = (byte[])store.RawPage(root).Clone();

        store.BeginTransaction();
        tree.Put(Key(id), Document(id, 31 + id, "2024-06-12T08:31:07Z", nickname));
        Assert.Equal(root, tree.State.RootPage);
        PageHeader.StampChecksum(store.RawPage(root));
        return (before, (byte[])store.RawPage(root).Clone());
    }

    [Fact]
    public void Compute_is_under_64_bytes_when_two_fields_of_a_1KiB_value_change_in_place()
    {
        var (before, after) = UpdateOne(3, nickname: "");

        var diff = RoundTrip(before, after);

        output.WriteLine($"same-size update of document 3: diff {diff.Length} bytes, ranges {string.Join(" ", Ranges(diff))}");
        Assert.True(diff.Length < 64, $"diff of {diff.Length} bytes");
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    [InlineData(Documents - 1)]
    public void Compute_covers_the_nodes_the_tree_moved_when_the_value_changes_size(int id)
    {
        // A value of another size is removed and re-inserted; removal slides the node bodies
        // below it up (B8 in TreePage.cs), so every moved body is part of the diff.
        var (before, after) = UpdateOne(id, nickname: "Bob");

        var diff = Compute(before, after);

        output.WriteLine($"size-changing update of document {id}: diff {(diff is null ? "NotSmaller (full page)" : $"{diff.Length} bytes, ranges {string.Join(" ", Ranges(diff))}")}");
        if (diff is not null)
        {
            Assert.Equal(after, Apply(diff, before));
        }
    }
}
