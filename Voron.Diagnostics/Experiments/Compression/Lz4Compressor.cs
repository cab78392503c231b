using K4os.Compression.LZ4;
using Voron.Compression;

namespace Voron.Diagnostics.Experiments.Compression;

/// <summary>
/// One LZ4 block compressor the compression experiment measures. Every one writes the public LZ4
/// block format, so each can read what any other wrote; the experiment checks that on every
/// payload.
/// </summary>
internal sealed record Lz4Compressor(string Name, string Description, BlockTransform Encode, BlockTransform Decode)
{
    /// <summary>K4os.Compression.LZ4 at <paramref name="level"/>.</summary>
    public static Lz4Compressor K4os(LZ4Level level) => new(
        level == LZ4Level.L00_FAST ? "k4os-fast" : $"k4os-hc{(int)level}",
        $"K4os.Compression.LZ4 {typeof(LZ4Codec).Assembly.GetName().Version}: LZ4Codec.Encode at {level}, LZ4Codec.Decode",
        (source, target) => LZ4Codec.Encode(source, target, level),
        (source, target) => LZ4Codec.Decode(source, target));

    /// <summary>
    /// The compressors the experiment runs, the engine's level (<see cref="Lz4Block.Level"/>)
    /// first. The HC levels cost far more time per byte. (Until commit 2123e8b the first was the
    /// engine's own codec, "voron".)
    /// </summary>
    public static IReadOnlyList<Lz4Compressor> All { get; } =
    [
        K4os(Lz4Block.Level),
        K4os(LZ4Level.L03_HC),
        K4os(LZ4Level.L09_HC),
    ];

    /// <summary>A target large enough for any compressor's output of <paramref name="length"/> bytes.</summary>
    public static int MaxCompressedLength(int length) => LZ4Codec.MaximumOutputSize(length);
}
