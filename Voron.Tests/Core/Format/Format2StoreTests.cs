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

    /// <summary>The format version of every intact-looking record header in the journal, by transaction id (the last one found).</summary>
    internal static SortedDictionary<long, int> RecordVersions(InMemoryFileSystem fs)
    {
        var versions = new SortedDictionary<long, int>();
        foreach (var number in JournalFiles.List(fs, Layout.JournalDirectory))
        {
            using var file = fs.Open(JournalFiles.PathOf(Layout.JournalDirectory, number), FileOpenMode.OpenExisting);
            var header = new byte[JournalRecord.HeaderSize];
            for (long offset = 0; offset + header.Length <= file.Length; offset += JournalRecord.Alignment)
            {
                if (file.Read(offset, header) == header.Length && BinaryPrimitives.ReadUInt64LittleEndian(header) == JournalRecord.Magic)
                {
                    versions[JournalRecord.GetTransactionId(header)] = BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(JournalRecord.FormatVersionOffset));
                }
            }
        }

        return versions;
    }

    [Fact]
    public void The_fixture_is_a_format2_store_whose_journal_holds_transactions_its_data_file_lacks()
    {
        using var fs = Format2Fixture.Load();

        var header = HeaderFile.ReadNewest(fs, Layout)!.Value;

        Assert.Equal([2, 2], HeaderCopyVersions(fs));
        Assert.Equal(2, header.FormatVersion);
        Assert.All(RecordVersions(fs).Values, version => Assert.Equal(2, version));
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

    [Fact]
    public void Open_of_a_format2_store_makes_its_header_say_format3_before_it_writes_a_record()
    {
        // A format-2 build reads the header first: once this build may write a format-3 record,
        // the header must make that build refuse the store instead of reporting the record as damage.
        using var fs = Format2Fixture.Load();

        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));

        Assert.Equal(HeaderFile.FormatVersion, HeaderFile.ReadNewest(fs, Layout)!.Value.FormatVersion);
        Assert.Contains(3, HeaderCopyVersions(fs));
    }

    [Fact]
    public void Open_of_a_cleanly_closed_format2_store_makes_its_header_say_format3_though_it_replays_nothing()
    {
        // A format-2 build's clean close leaves no record past the synced point, so recovery
        // writes no header: the open must write one anyway, before the store's next record.
        using var fs = Format2Fixture.Load();
        StorageEnvironment.Open(StoreFactory.Options(fs)).Dispose();
        foreach (var revision in new[] { 1, 2 })
        {
            using var file = fs.Open(Layout.HeaderFile(revision), FileOpenMode.OpenExisting);
            var bytes = new byte[HeaderFile.Size];
            file.Read(0, bytes);
            BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(HeaderFile.FormatVersionOffset), HeaderFile.FormatVersion2);
            BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(HeaderFile.ChecksumOffset), HeaderFile.ComputeChecksum(bytes));
            file.Write(0, bytes);
        }

        using var env = StorageEnvironment.Open(StoreFactory.Options(fs));

        Assert.Equal(HeaderFile.FormatVersion, HeaderFile.ReadNewest(fs, Layout)!.Value.FormatVersion);
        AssertHoldsExactly(env, Format2Fixture.Expected());
    }

    [Fact]
    public void A_format2_store_takes_writes_as_format3_records_and_reads_everything_back_after_reopen()
    {
        using var fs = Format2Fixture.Load();
        var expected = Format2Fixture.Expected();
        var inline = new byte[3000];
        new Random(46).NextBytes(inline);
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("inline").Put("i100"u8, inline);
            tx.CreateTree("small").Put("k0000"u8, "rewritten"u8);
            Assert.True(tx.CreateTree("overflow").Delete("o000"u8));
            tx.CreateTree("format3").Put("x"u8, "y"u8);
            tx.Commit();

            // The format-2 records stay as they were written; this build's record is format 3.
            var versions = RecordVersions(fs);
            var last = Format2Fixture.Transactions().Count;
            Assert.Equal(3, versions[last + 1]);
            Assert.All(versions.Where(v => v.Key <= last), v => Assert.Equal(2, v.Value));
        }

        expected["inline"]["i100"] = inline;
        expected["small"]["k0000"] = "rewritten"u8.ToArray();
        expected["overflow"].Remove("o000");
        expected["format3"] = new(StringComparer.Ordinal) { ["x"] = "y"u8.ToArray() };
        using (var env = StorageEnvironment.Open(StoreFactory.Options(fs)))
        {
            AssertHoldsExactly(env, expected);
            Assert.Equal(expected.Count, env.CheckIntegrity().Trees);
        }

        Assert.Equal([3, 3], HeaderCopyVersions(fs));
    }
}
