namespace Voron.Diagnostics.Experiments.Compression;

/// <summary>Compresses or decompresses one LZ4 block from <paramref name="source"/> into <paramref name="target"/>; returns the bytes written, negative when the block does not decode.</summary>
internal delegate int BlockTransform(ReadOnlySpan<byte> source, Span<byte> target);
