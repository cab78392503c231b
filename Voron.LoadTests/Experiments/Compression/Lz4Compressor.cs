using K4os.Compression.LZ4;
using Voron.Compression;

namespace Voron.LoadTests.Experiments.Compression;

/// <summary>
/// One LZ4 block compressor the compression experiment measures. Every one writes the public LZ4
/// block format, so each can read what any other wrote; the experiment checks that on every
/// payload.
/// </summary>
internal sealed record Lz4Compressor(string Name, string Description, BlockTransform Encode, BlockTransform Decode)
{
    /// <summary>The engine's codec today (Voron.Core/Compression/Lz4Block.cs): greedy single pass, acceleration 1.</summary>
    public static Lz4Compressor Voron { get; } = new(
        "voron",
        "Voron.Core's own LZ4 block codec (Compression/Lz4Block.cs) at acceleration 1, as the journal calls it",
        (source, target) => Lz4Block.Compress(source, target),
        DecodeWithVoron);

    /// <summary>K4os.Compression.LZ4 at <paramref name="level"/>.</summary>
    public static Lz4Compressor K4os(LZ4Level level) => new(
        level == LZ4Level.L00_FAST ? "k4os-fast" : $"k4os-hc{(int)level}",
        $"K4os.Compression.LZ4 {typeof(LZ4Codec).Assembly.GetName().Version}: LZ4Codec.Encode at {level}, LZ4Codec.Decode",
        (source, target) => LZ4Codec.Encode(source, target, level),
        (source, target) => LZ4Codec.Decode(source, target));

    /// <summary>The compressors the experiment runs, the engine's first. The HC levels cost far more time per byte.</summary>
    public static IReadOnlyList<Lz4Compressor> All { get; } =
    [
        Voron,
        K4os(LZ4Level.L00_FAST),
        K4os(LZ4Level.L03_HC),
        K4os(LZ4Level.L09_HC),
    ];

    /// <summary>A target large enough for any compressor's output of <paramref name="length"/> bytes.</summary>
    public static int MaxCompressedLength(int length) => Math.Max(Lz4Block.MaxCompressedLength(length), LZ4Codec.MaximumOutputSize(length));

    private static int DecodeWithVoron(ReadOnlySpan<byte> source, Span<byte> target)
    {
        try
        {
            return Lz4Block.Decompress(source, target);
        }
        catch (InvalidDataException)
        {
            return -1;
        }
    }
}
