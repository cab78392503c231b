using K4os.Compression.LZ4;

namespace Voron.Compression;

// FORMAT: LZ4 block, the public LZ4 block format (not the LZ4 frame format) — how journal
// payloads are compressed. K4os.Compression.LZ4 writes and reads it (LZ4Codec, a port of liblz4's
// block functions); any LZ4 block decoder reads what it writes. Until commit 2123e8b the engine
// wrote these blocks with its own codec; Voron.Tests/Core/Compression/Fixtures keeps blocks it wrote,
// and Lz4FixtureTests proves they still decode. A block carries no header, no sizes and no
// checksum: the caller stores the compressed and uncompressed sizes and checksums the stored
// bytes elsewhere (JournalRecord.cs).
//
// A block is a sequence of sequences; a sequence is literals copied as they are, then a match
// that repeats bytes already produced:
//
//   +-------+------------------+------------+------------+------------------+
//   | token | literal length+  | literals   | offset     | match length+    |
//   | 1     | 0..n             | 0..n bytes | 2          | 0..n             |
//   +-------+------------------+------------+------------+------------------+
//                                            \__ absent in the last sequence _/
//
//   FIELD            SIZE   MEANING
//   token            1      high nibble: literal length 0..15; low nibble: match length - 4,
//                           0..15 (4..19 bytes)
//   literal length+  0..n   only when the high nibble is 15: bytes added to 15, each 0..255; a
//                           byte of 255 means another length byte follows, any other ends it
//   literals         n      the literal bytes
//   offset           2      little-endian distance back from the current output position to the
//                           start of the match, 1..65535; the match may overlap the bytes it
//                           produces (offset 1 repeats the previous byte)
//   match length+    0..n   only when the low nibble is 15: more length, encoded as above
//
// End of block: the last sequence is literals only; the last 5 output bytes are literals and the
// last match starts at least 12 bytes before the end of the output. The empty input is the empty
// block (the engine's own codec wrote it as the one byte 0x00, which Decompress still accepts).
//
// Validity. Decompress reads bytes from disk and accepts a block iff
//   LB1. K4os's decoder (LZ4Codec.Decode, liblz4's LZ4_decompress_safe) decodes it into the
//       destination: it reads nothing outside the block and writes nothing outside the
//       destination, and a length, offset or end that would is a failure, which Decompress turns
//       into InvalidDataException. Each sequence consumes at least its token byte, so decoding
//       ends after at most source.Length sequences whatever the bytes say.
//   LB2. the caller checks the decoded length against the size it stored (R9 in JournalRecord.cs).

/// <summary>
/// LZ4 block compression for the journal (see the FORMAT comment above), through
/// K4os.Compression.LZ4 at its fastest level (why this library and this level: the compression
/// experiment; docs/dependencies.md).
/// </summary>
internal static class Lz4Block
{
    /// <summary>
    /// K4os's fastest level. Its HC levels compress JSON somewhat smaller at a fraction of the
    /// speed, which on the disks measured costs more time than the bytes saved
    /// (docs/dependencies.md; docs/results/2026-12-06-code-comment-measurements.md).
    /// </summary>
    internal const LZ4Level Level = LZ4Level.L00_FAST;

    /// <summary>Largest input Compress accepts; MaxCompressedLength of it still fits an int.</summary>
    internal const int MaxInputLength = 0x7E00_0000;

    /// <summary>
    /// Worst-case size of Compress's output for <paramref name="inputLength"/> bytes: every byte a
    /// literal, one length byte per 255 literals, and a little for the token and rounding.
    /// A destination of this size never makes Compress throw.
    /// </summary>
    public static int MaxCompressedLength(int inputLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(inputLength);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(inputLength, MaxInputLength);
        return LZ4Codec.MaximumOutputSize(inputLength);
    }

    /// <summary>
    /// Compresses <paramref name="source"/> into one block in <paramref name="destination"/>, which
    /// must hold <see cref="MaxCompressedLength"/> bytes; returns the block's length.
    /// </summary>
    public static int Compress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        var bound = MaxCompressedLength(source.Length);
        if (destination.Length < bound)
        {
            throw new ArgumentException($"The destination holds {destination.Length} bytes; MaxCompressedLength({source.Length}) is {bound}.", nameof(destination));
        }

        if (source.Overlaps(destination))
        {
            throw new ArgumentException("The source and destination overlap.", nameof(destination));
        }

        var length = LZ4Codec.Encode(source, destination, Level);
        if (length < 0 || (length == 0 && !source.IsEmpty))
        {
            // Cannot happen with a destination of MaxCompressedLength bytes; a library that did it
            // must not hand the journal a truncated block.
            throw new InvalidOperationException($"LZ4Codec.Encode returned {length} for {source.Length} bytes into {destination.Length}.");
        }

        return length;
    }

    /// <summary>
    /// Decodes the block in <paramref name="source"/> (bytes from disk) into
    /// <paramref name="destination"/>; returns the number of bytes produced, which the caller checks
    /// against the size it expects (LB2). A block that does not decode into the destination (LB1)
    /// throws <see cref="InvalidDataException"/>.
    /// </summary>
    public static int Decompress(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        if (source.Overlaps(destination))
        {
            throw new ArgumentException("The source and destination overlap.", nameof(destination));
        }

        if (source is [0])
        {
            return 0; // the empty input as the engine's own codec wrote it (liblz4 writes it so too)
        }

        var length = LZ4Codec.Decode(source, destination);
        if (length < 0)
        {
            throw new InvalidDataException(
                $"Malformed LZ4 block: its {source.Length} bytes do not decode into {destination.Length} bytes (LB1).");
        }

        return length;
    }
}
