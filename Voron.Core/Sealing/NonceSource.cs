using System.Buffers.Binary;
using System.Security.Cryptography;

namespace Voron.Sealing;

/// <summary>
/// The nonces of one subkey in one process (SL1): an 8-byte prefix drawn from
/// RandomNumberGenerator when the source is created and whenever the counter would wrap, then a
/// 4-byte little-endian counter. Nothing of it is persisted: a reopen, a crash or a copy of the
/// store makes a new source with a new prefix (the argument is in SealFormat.cs). Thread-safe.
/// </summary>
internal sealed class NonceSource
{
    /// <summary>The counter's width: 2^32 nonces per prefix.</summary>
    public const int CounterBits = 32;

    /// <summary>Fills a buffer with random bytes (RandomNumberGenerator.Fill, or a seeded stand-in in tests).</summary>
    public delegate void RandomFill(Span<byte> destination);

    private readonly Lock gate = new();
    private readonly ulong counterLimit;
    private readonly RandomFill fillRandom;
    private readonly byte[] prefix = new byte[SealFormat.NoncePrefixSize];
    private ulong counter;

    public NonceSource()
        : this(CounterBits, RandomNumberGenerator.Fill)
    {
    }

    /// <summary>A source whose counter wraps after 2^<paramref name="counterBits"/> nonces and whose prefixes come from <paramref name="fillRandom"/>: tests force the wrap with a tiny width.</summary>
    internal NonceSource(int counterBits, RandomFill fillRandom)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(counterBits, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(counterBits, CounterBits);
        counterLimit = 1UL << counterBits;
        this.fillRandom = fillRandom;
        DrawPrefix();
    }

    /// <summary>How many prefixes this source has drawn (1 + the counter's wraps).</summary>
    public int PrefixesDrawn { get; private set; }

    /// <summary>Writes the next nonce (12 bytes) into <paramref name="nonce"/>.</summary>
    public void Next(Span<byte> nonce)
    {
        if (nonce.Length != SealFormat.NonceSize)
        {
            throw new ArgumentException($"A nonce is {SealFormat.NonceSize} bytes.", nameof(nonce));
        }

        lock (gate)
        {
            if (counter == counterLimit)
            {
                // SL1: a prefix's counter values are spent; never let the counter start over under it.
                DrawPrefix();
            }

            prefix.CopyTo(nonce);
            BinaryPrimitives.WriteUInt32LittleEndian(nonce[SealFormat.NoncePrefixSize..], (uint)counter);
            counter++;
        }
    }

    private void DrawPrefix()
    {
        fillRandom(prefix);
        counter = 0;
        PrefixesDrawn++;
    }
}
