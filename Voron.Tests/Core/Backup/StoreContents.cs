using Voron.PageFiles;

namespace Voron.Tests.Core.Backup;

/// <summary>
/// What a test store holds: the keys and values of tree "t" and the bytes of page file "pf".
/// The model the backup and restore tests compare stores with.
/// </summary>
internal sealed class StoreContents
{
    public const string TreeName = "t";
    public const string PageFileName = "pf";

    public SortedDictionary<string, byte[]> Entries { get; } = new(StringComparer.Ordinal);

    public byte[] PageFile { get; private set; } = [];

    public StoreContents Clone()
    {
        var copy = new StoreContents { PageFile = (byte[])PageFile.Clone() };
        foreach (var (key, value) in Entries)
        {
            copy.Entries[key] = value;
        }

        return copy;
    }

    public void WritePageFile(long offset, byte[] bytes)
    {
        if (offset + bytes.Length > PageFile.Length)
        {
            var grown = new byte[offset + bytes.Length];
            PageFile.CopyTo(grown, 0);
            PageFile = grown;
        }

        bytes.CopyTo(PageFile, offset);
    }

    /// <summary>Reads what <paramref name="read"/> sees.</summary>
    public static StoreContents Read(ReadTransaction read)
    {
        var contents = new StoreContents();
        var tree = read.OpenTree(TreeName);
        if (tree != null)
        {
            var iterator = tree.Iterate();
            if (iterator.SeekFirst())
            {
                do
                {
                    contents.Entries[Encoding.UTF8.GetString(iterator.Key)] = iterator.Value.ToArray();
                }
                while (iterator.MoveNext());
            }
        }

        var file = read.OpenPageFile(PageFileName);
        if (file != null)
        {
            var bytes = new byte[file.Length];
            file.Read(0, bytes);
            contents.PageFile = bytes;
        }

        return contents;
    }

    /// <summary>Opens the store in <paramref name="directory"/>, checks its integrity and asserts it holds exactly <paramref name="expected"/>.</summary>
    public static void AssertStore(string directory, StoreContents expected, long expectedTxId)
    {
        using var env = StorageEnvironment.Open(StorageEnvironmentOptions.ForDirectory(directory));
        Assert.Equal(expectedTxId, env.LastCommittedTransactionId);
        env.CheckIntegrity();
        using var read = env.BeginRead();
        AssertEqual(expected, Read(read), $"store '{directory}' at tx {expectedTxId}");
    }

    public static void AssertEqual(StoreContents expected, StoreContents actual, string what)
    {
        Assert.True(expected.Entries.Keys.SequenceEqual(actual.Entries.Keys),
            $"{what}: keys differ (expected {expected.Entries.Count}, found {actual.Entries.Count})");
        foreach (var (key, value) in expected.Entries)
        {
            Assert.True(value.AsSpan().SequenceEqual(actual.Entries[key]), $"{what}: value of '{key}' differs");
        }

        Assert.True(expected.PageFile.AsSpan().SequenceEqual(actual.PageFile), $"{what}: page file differs ({expected.PageFile.Length} vs {actual.PageFile.Length} bytes)");
    }
}
