using System.Security.Cryptography;
using Voron.Compression;

namespace Voron.Tests.Core.Compression;

/// <summary>
/// Journal records written before the engine moved to K4os.Compression.LZ4 hold blocks that
/// Voron.Core's own LZ4 codec wrote (up to commit 2123e8b, whose Write_fixtures_when_asked test
/// wrote these files). <c>Fixtures/</c> keeps such blocks — real journal payloads
/// captured from stores (the compression experiment's workloads) and inputs that reach every
/// corner of the format (empty, under 13 bytes, long literal runs, matches overlapping their
/// output, offsets near 64 KiB) — with each payload's length and SHA-256 in
/// <c>Fixtures/manifest.txt</c>. Whatever decodes journal records must give back every payload.
/// </summary>
public sealed class Lz4FixtureTests
{
    private static readonly string Directory = Path.Combine(AppContext.BaseDirectory, "Core", "Compression", "Fixtures");

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

    private static List<(string Name, int Length, string Sha256)> Manifest() =>
        [.. File.ReadAllLines(Path.Combine(Directory, "manifest.txt"))
            .Where(line => line.Length > 0 && line[0] != '#')
            .Select(line => line.Split(' '))
            .Select(f => (f[0], int.Parse(f[1], CultureInfo.InvariantCulture), f[2]))];
}
