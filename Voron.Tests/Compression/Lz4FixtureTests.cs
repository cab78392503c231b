using System.Globalization;
using System.Security.Cryptography;
using K4os.Compression.LZ4;
using Voron.Compression;
using Voron.LoadTests.Experiments.Compression;

namespace Voron.Tests.Compression;

/// <summary>
/// Journal records written before the engine moved to K4os.Compression.LZ4 hold blocks that
/// Voron.Core's own LZ4 codec wrote. <c>Fixtures/</c> keeps such blocks — real journal payloads
/// captured from stores (the compression experiment's workloads) and inputs that reach every
/// corner of the format (empty, under 13 bytes, long literal runs, matches overlapping their
/// output, offsets near 64 KiB) — with each payload's length and SHA-256 in
/// <c>Fixtures/manifest.txt</c>. Whatever decodes journal records must give back every payload.
/// </summary>
public sealed class Lz4FixtureTests
{
    private static readonly string Directory = Path.Combine(AppContext.BaseDirectory, "Compression", "Fixtures");

    public static TheoryData<string> Blocks() => [.. Manifest().Select(m => m.Name)];

    [Theory]
    [MemberData(nameof(Blocks))]
    public void Decompress_restores_a_block_the_engines_own_codec_wrote(string name)
    {
        var (_, length, digest) = Manifest().Single(m => m.Name == name);
        var block = File.ReadAllBytes(Path.Combine(Directory, name + ".lz4"));
        var restored = new byte[length];

        Assert.Equal(length, Lz4Block.Decompress(block, restored));
        Assert.Equal(digest, Convert.ToHexString(SHA256.HashData(restored)));
    }

    public static TheoryData<string> NonEmptyBlocks() => [.. Manifest().Where(m => m.Length > 0).Select(m => m.Name)];

    /// <remarks>
    /// Not the empty input: our codec wrote it as the one byte 0x00 (as liblz4 does), which K4os
    /// refuses (it writes and reads the empty input as zero bytes). The journal never compresses a
    /// payload under 3,968 bytes, so no record holds that block.
    /// </remarks>
    [Theory]
    [MemberData(nameof(NonEmptyBlocks))]
    public void K4os_restores_a_block_the_engines_own_codec_wrote(string name)
    {
        var (_, length, digest) = Manifest().Single(m => m.Name == name);
        var block = File.ReadAllBytes(Path.Combine(Directory, name + ".lz4"));
        var restored = new byte[length];

        Assert.Equal(length, LZ4Codec.Decode(block, restored));
        Assert.Equal(digest, Convert.ToHexString(SHA256.HashData(restored)));
    }

    /// <summary>
    /// Writes the fixtures with the engine's own codec when VORON_WRITE_LZ4_FIXTURES names a
    /// directory (run once, before the codec was replaced); otherwise does nothing.
    /// </summary>
    [Fact]
    public void Write_fixtures_when_asked()
    {
        var target = System.Environment.GetEnvironmentVariable("VORON_WRITE_LZ4_FIXTURES");
        if (string.IsNullOrEmpty(target))
        {
            return;
        }

        System.IO.Directory.CreateDirectory(target);
        var inputs = new List<(string Name, byte[] Payload)>();
        foreach (var set in PayloadSet.Capture(documents: 200, batches: 2, bulkTransactions: 1))
        {
            var take = set.Name.StartsWith("journal", StringComparison.Ordinal) ? 3 : 1;
            inputs.AddRange(set.Payloads.Where(p => p.Length < 100_000).Take(take).Select((p, i) => ($"{set.Name}-{i}", p)));
        }

        var random = new Random(20_261_122);
        inputs.Add(("empty", []));
        inputs.AddRange(new[] { 1, 5, 12, 13, 20 }.Select(n => ($"random-{n}", Lz4TestData.RandomBytes(random, n))));
        inputs.Add(("zeros-13", new byte[13]));
        inputs.Add(("zeros-1mib", new byte[1 << 20]));
        inputs.AddRange(new[] { 1, 3, 8, 16 }.Select(p => ($"period-{p}", Lz4TestData.Run(random, p, 70_000))));
        inputs.Add(("random-64kib", Lz4TestData.RandomBytes(random, 64 * 1024)));
        inputs.Add(("json-256kib", Lz4TestData.Json(random, 256 * 1024)));
        inputs.Add(("sparse-page", Lz4TestData.SparsePage(random)));
        inputs.Add(("mixed-100kb", Lz4TestData.Mixed(random, 100_000)));
        var json = Lz4TestData.Json(random, 30_000);
        inputs.Add(("json-noise-json", [.. json, .. Lz4TestData.RandomBytes(random, 65_000), .. json]));

        var manifest = new List<string> { "# name raw-length raw-sha256; NAME.lz4 is the block Voron.Core's own codec (Lz4Block.Compress) wrote" };
        foreach (var (name, payload) in inputs)
        {
            var block = new byte[Lz4Block.MaxCompressedLength(payload.Length)];
            var length = Lz4Block.Compress(payload, block);
            File.WriteAllBytes(Path.Combine(target, name + ".lz4"), block[..length]);
            manifest.Add(string.Create(CultureInfo.InvariantCulture, $"{name} {payload.Length} {Convert.ToHexString(SHA256.HashData(payload))}"));
        }

        File.WriteAllLines(Path.Combine(target, "manifest.txt"), manifest);
    }

    private static List<(string Name, int Length, string Sha256)> Manifest() =>
        [.. File.ReadAllLines(Path.Combine(Directory, "manifest.txt"))
            .Where(line => line.Length > 0 && line[0] != '#')
            .Select(line => line.Split(' '))
            .Select(f => (f[0], int.Parse(f[1], CultureInfo.InvariantCulture), f[2]))];
}
