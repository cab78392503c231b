using System.Security.Cryptography;
using Voron.Paging;
using Voron.Sealing;

namespace Voron.Tests.Core.Sealing;

/// <summary>Keys, pages and seals the sealing tests share.</summary>
internal static class SealingFixtures
{
    public const ulong StoreId = 0x5EA1_0000_0000_0047;
    public const string DataFile = "/store/voron.data";

    /// <summary>The algorithms this machine supports: a theory row per algorithm that can run here (an unsupported one has no row, so it is not reported as passed), by name: theory arguments must be public.</summary>
    public static TheoryData<string> Algorithms
    {
        get
        {
            var data = new TheoryData<string>();
            foreach (var algorithm in new[] { SealAlgorithm.AesGcm, SealAlgorithm.ChaCha20Poly1305 })
            {
                if (SealFormat.IsSupported(algorithm))
                {
                    data.Add(algorithm.ToString());
                }
            }

            return data;
        }
    }

    public static byte[] Key(byte fill) => Enumerable.Range(0, SealFormat.KeySize).Select(i => (byte)(fill + i)).ToArray();

    public static byte[] Salt(byte fill) => Enumerable.Repeat(fill, SealFormat.SaltSize).ToArray();

    public static StoreKey StoreKey(SealAlgorithm algorithm, byte keyFill = 1, ulong storeId = StoreId, byte saltFill = 7) =>
        Voron.Sealing.StoreKey.Derive(Key(keyFill), Salt(saltFill), storeId, algorithm);

    /// <summary>A leaf page <paramref name="pageNumber"/> with random node bytes and its plaintext checksum stamped, as the page table holds it.</summary>
    public static byte[] LeafPage(long pageNumber, Random random)
    {
        var page = new byte[Constants.PageSize];
        PageHeader.SetPageNumber(page, pageNumber);
        PageHeader.SetFlags(page, PageFlags.Leaf);
        PageHeader.SetLower(page, 80);
        PageHeader.SetUpper(page, 4000);
        random.NextBytes(page.AsSpan(PageHeader.Size));
        PageHeader.StampChecksum(page);
        return page;
    }

    /// <summary>An overflow run starting at <paramref name="pageNumber"/> holding a value of <paramref name="valueSize"/> bytes.</summary>
    public static byte[] OverflowRun(long pageNumber, int valueSize, Random random)
    {
        var run = new byte[PageHeader.OverflowPageCount(valueSize) * Constants.PageSize];
        PageHeader.SetPageNumber(run, pageNumber);
        PageHeader.SetFlags(run, PageFlags.Overflow);
        PageHeader.SetOverflowSize(run, valueSize);
        random.NextBytes(run.AsSpan(PageHeader.Size, valueSize));
        PageHeader.StampChecksum(run);
        return run;
    }

    /// <summary>A store key of <paramref name="algorithm"/>, its pages subkey's AEAD and a page seal over them, disposed together.</summary>
    public sealed class PageSealer : IDisposable
    {
        public PageSealer(SealAlgorithm algorithm)
        {
            Key = StoreKey(algorithm);
            Aead = Key.CreatePagesAead();
            Seal = new PageSeal(Aead, new NonceSource());
        }

        public StoreKey Key { get; }

        public Aead Aead { get; }

        public PageSeal Seal { get; }

        public void Dispose()
        {
            Aead.Dispose();
            Key.Dispose();
        }
    }

    public static byte[] RandomBytes(int length) => RandomNumberGenerator.GetBytes(length);

    /// <summary>The tree <see cref="Put"/> and <see cref="Get"/> use.</summary>
    public const string StoreTree = "sealed";

    /// <summary>Commits <paramref name="key"/> = <paramref name="value"/> to <see cref="StoreTree"/>.</summary>
    public static void Put(StorageEnvironment env, string key, string value)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree(StoreTree).Put(System.Text.Encoding.UTF8.GetBytes(key), System.Text.Encoding.UTF8.GetBytes(value));
        tx.Commit();
    }

    public static string? Get(StorageEnvironment env, string key)
    {
        using var read = env.BeginRead();
        return read.OpenTree(StoreTree) is { } tree && tree.TryGet(System.Text.Encoding.UTF8.GetBytes(key), out var value)
            ? System.Text.Encoding.UTF8.GetString(value)
            : null;
    }

    /// <summary>Every file of a store directory and its bytes, to show a refused open changed none.</summary>
    public static Dictionary<string, byte[]> Snapshot(string directory) =>
        Directory.GetFiles(directory, "*", SearchOption.AllDirectories).ToDictionary(f => Path.GetRelativePath(directory, f), File.ReadAllBytes);
}
