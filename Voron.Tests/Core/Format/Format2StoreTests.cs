using Voron.Header;

namespace Voron.Tests.Core.Format;

/// <summary>
/// A store written by format 2 (Fixtures/format2.zip, made by a format-2 build) opens in this
/// build: its format-2 journal records replay, every value reads back exactly, and it takes writes.
/// </summary>
public sealed class Format2StoreTests
{
    private static readonly StoreLayout Layout = new("/store");

    private static void AssertHoldsExactly(StorageEnvironment env, SortedDictionary<string, SortedDictionary<string, byte[]>> expected)
    {
        using var read = env.BeginRead();
        Assert.Equal(expected.Keys, read.GetTreeNames().Order(StringComparer.Ordinal));
        foreach (var (name, values) in expected)
        {
            var tree = read.OpenTree(name)!;
            Assert.Equal(values.Count, tree.Count);
            var iterator = tree.Iterate();
            var found = new List<KeyValuePair<string, byte[]>>();
            if (iterator.SeekFirst())
            {
                do
                {
                    found.Add(new(Encoding.UTF8.GetString(iterator.Key), iterator.Value.ToArray()));
                }
                while (iterator.MoveNext());
            }

            Assert.Equal(values.Keys, found.Select(f => f.Key));
            foreach (var (key, value) in found)
            {
                Assert.True(values[key].AsSpan().SequenceEqual(value), $"tree {name}, key {key}");
                Assert.True(value.AsSpan().SequenceEqual(tree.Get(Encoding.UTF8.GetBytes(key))), $"tree {name}, key {key} by Get");
            }
        }
    }

    /// <summary>The format version each header copy (headers.one, headers.two) says, as written.</summary>
    internal static int[] HeaderCopyVersions(InMemoryFileSystem fs) =>
    [
        .. new[] { 1, 2 }.Select(revision =>
        {
            using var file = fs.Open(Layout.HeaderFile(revision), FileOpenMode.OpenExisting);
            var bytes = new byte[HeaderFile.Size];
            file.Read(0, bytes);
            return BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset));
        }),
    ];

    [Fact]
    public void The_fixture_is_a_format2_store_whose_journal_holds_transactions_its_data_file_lacks()
    {
        using var fs = Format2Fixture.Load();

        var header = HeaderFile.ReadNewest(fs, Layout)!.Value;

        Assert.Equal([2, 2], HeaderCopyVersions(fs));
        Assert.Equal(Format2Fixture.FlushedTransactions, header.LastSyncedTxId);
        Assert.NotEmpty(JournalFiles.List(fs, Layout.JournalDirectory));
    }

    [Fact]
    public void Open_of_a_format2_store_replays_its_format2_journal_and_reads_every_value_exactly()
    {
        using var fs = Format2Fixture.Load();

        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));

        Assert.Equal(Format2Fixture.Transactions().Count, env.LastCommittedTransactionId);
        AssertHoldsExactly(env, Format2Fixture.Expected());
        Assert.Equal(Format2Fixture.Expected().Count, env.CheckIntegrity().Trees);
    }
}
