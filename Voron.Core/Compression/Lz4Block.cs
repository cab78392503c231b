namespace Voron.Compression;

// FORMAT: LZ4 block, the public LZ4 block format (not the LZ4 frame format) — how journal
// payloads are compressed. Written from the format description; any LZ4 block decoder (liblz4's
// LZ4_decompress_safe) reads what Compress writes, and Decompress reads what liblz4's
// LZ4_compress_default writes. A block carries no header, no sizes and no checksum: the caller
// stores the compressed and uncompressed sizes and checksums the stored bytes elsewhere.
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
//                           (15 + 255 + 255 + 7 = 532 literals)
//   literals         n      the literal bytes
//   offset           2      little-endian distance back from the current output position to the
//                           start of the match, 1..65535; the match may overlap the bytes it
//                           produces (offset 1 repeats the previous byte)
//   match length+    0..n   only when the low nibble is 15: more length, encoded as above
//
// End of block. The last sequence is literals only: the block ends right after its literals.
// The last 5 output bytes are literals, and the last match starts at least 12 bytes before the
// end of the output, so an input shorter than 13 bytes is stored as one literal-only sequence.
// The empty input is the one byte 0x00. These end rules let decoders copy 8 or 16 bytes at a
// time without checking every byte; Compress always keeps them.
//
// Validity. Decompress reads bytes from disk and accepts a block iff (S = source offset where
// the rule is checked; a breach throws InvalidDataException naming the rule and S):
//   L1. the block is not empty, and every sequence starts with a token inside the block;
//   L2. every extended length ends (a byte other than 255) inside the block, and no length is
//       larger than the destination;
//   L3. the literals lie inside the block and fit in the destination;
//   L4. a sequence whose literals do not end the block has its two offset bytes inside it;
//   L5. the offset is not 0 and reaches no further back than the first output byte;
//   L6. the match fits in the destination;
//   L7. if the block has a match, its last sequence has at least 5 literals and its last match
//       starts at least 12 bytes before the end of the output (the end rules above).
// Each sequence consumes at least its token byte, so decoding ends after at most source.Length
// sequences whatever the bytes say.

/// <summary>
/// LZ4 block compression (see the FORMAT comment in Lz4Block.cs): a greedy single-pass
/// compressor and a decoder that validates every length and offset it reads.
/// </summary>
internal static partial class Lz4Block
{
    /// <summary>Shortest match the format can express (token low nibble 0).</summary>
    internal const int MinMatch = 4;

    /// <summary>Largest match offset: the offset field is 16 bits and 0 is invalid (L5).</summary>
    internal const int MaxOffset = 65535;

    /// <summary>The last sequence holds at least this many literals (L7).</summary>
    internal const int LastLiterals = 5;

    /// <summary>The last match starts at least this many bytes before the end of the output (L7).</summary>
    internal const int MatchStartLimit = 12;

    /// <summary>Inputs shorter than this are stored as one literal-only sequence.</summary>
    internal const int MinCompressibleLength = MatchStartLimit + 1;

    /// <summary>Largest input Compress accepts; MaxCompressedLength of it still fits an int.</summary>
    internal const int MaxInputLength = 0x7E00_0000;

    /// <summary>A length nibble of 15 says extra length bytes follow.</summary>
    private const int LengthNibbleMax = 15;

    /// <summary>An extra length byte of 255 says another length byte follows.</summary>
    private const int LengthByteMore = 255;

    /// <summary>
    /// Worst-case size of Compress's output for <paramref name="inputLength"/> bytes: every byte a
    /// literal, one length byte per 255 literals, and a little for the token and rounding.
    /// A destination of this size never makes Compress throw.
    /// </summary>
    public static int MaxCompressedLength(int inputLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(inputLength);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(inputLength, MaxInputLength);
        return inputLength + (inputLength / 255) + 16;
    }
}
