using System.IO.Compression;

namespace Voron.Tests.Core.Format;

/// <summary>
/// The store in Fixtures/format2.zip, written by a build of format 2 (Fixtures/README.md says
/// which and how): the transactions below, replayable here so a test knows every byte the store
/// must hold. The first <see cref="FlushedTransactions"/> were flushed to the data file; the rest
/// were committed and left in the journal only, so opening the fixture replays format-2 records.
/// </summary>
internal static class Format2Fixture
{
    public const string ZipPath = "Core/Format/Fixtures/format2.zip";
    public const int FlushedTransactions = 4;
    private const int Seed = 4646;

    /// <summary>One put (Value not null) or delete (Value null) of a transaction.</summary>
    public readonly record struct Operation(string Tree, string Key, byte[]? Value);

    /// <summary>The fixture's transactions in commit order. Deterministic: the same on every call and every build.</summary>
    public static List<List<Operation>> Transactions()
    {
        var random = new Random(Seed);
        byte[] Text(int i, int length) => Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat($"value {i};", (length / 8) + 1)))[..length];
        byte[] Bytes(int length)
        {
            // A random 37-byte pattern repeated: every value differs, and the fixture compresses small.
            var pattern = new byte[37];
            random.NextBytes(pattern);
            var value = new byte[length];
            for (var i = 0; i < length; i++)
            {
                value[i] = pattern[i % 37];
            }

            return value;
        }

        var transactions = new List<List<Operation>>();

        // Flushed to the data file: 300 small values over two transactions, 24 values of 2-4 KiB
        // (inline in format 2's last builds), two overflow values.
        for (var part = 0; part < 2; part++)
        {
            transactions.Add([.. Enumerable.Range(part * 150, 150).Select(i => new Operation("small", $"k{i:D4}", Text(i, random.Next(8, 200))))]);
        }

        transactions.Add([.. Enumerable.Range(0, 24).Select(i => new Operation("inline", $"i{i:D3}", Bytes(random.Next(2100, 4040))))]);
        transactions.Add([new Operation("overflow", "o000", Bytes(12_000)), new Operation("overflow", "o001", Bytes(20_000))]);

        // Left in the journal: updates, deletes, more inline values, a smaller overflow value and a new tree.
        transactions.Add([
            .. Enumerable.Range(0, 50).Select(i => new Operation("small", $"k{i * 6:D4}", Text(1000 + i, random.Next(8, 400)))),
            .. Enumerable.Range(0, 10).Select(i => new Operation("small", $"k{(i * 6) + 1:D4}", null)),
        ]);
        transactions.Add([
            .. Enumerable.Range(24, 4).Select(i => new Operation("inline", $"i{i:D3}", Bytes(random.Next(2100, 4040)))),
            new Operation("inline", "i005", null),
            new Operation("overflow", "o002", Bytes(9_000)),
        ]);
        transactions.Add([.. Enumerable.Range(0, 30).Select(i => new Operation("late", $"l{i:D3}", Text(2000 + i, 50)))]);
        return transactions;
    }

    /// <summary>What every tree holds after all the transactions.</summary>
    public static SortedDictionary<string, SortedDictionary<string, byte[]>> Expected()
    {
        var trees = new SortedDictionary<string, SortedDictionary<string, byte[]>>(StringComparer.Ordinal);
        foreach (var operation in Transactions().SelectMany(t => t))
        {
            if (!trees.TryGetValue(operation.Tree, out var tree))
            {
                trees[operation.Tree] = tree = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
            }

            if (operation.Value is null)
            {
                tree.Remove(operation.Key);
            }
            else
            {
                tree[operation.Key] = operation.Value;
            }
        }

        return trees;
    }

    /// <summary>A fresh in-memory copy of the fixture's files under /store.</summary>
    public static InMemoryFileSystem Load()
    {
        var fs = StoreFactory.NewFileSystem();
        using var zip = ZipFile.OpenRead(Path.Combine(AppContext.BaseDirectory, ZipPath));
        foreach (var entry in zip.Entries.Where(e => e.Length > 0 || !e.FullName.EndsWith('/')))
        {
            using var source = entry.Open();
            using var buffer = new MemoryStream();
            source.CopyTo(buffer);
            using var file = fs.Open("/store/" + entry.FullName, FileOpenMode.CreateNew);
            file.Write(0, buffer.ToArray());
        }

        return fs;
    }
}
