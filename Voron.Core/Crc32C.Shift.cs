using System.Numerics;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Voron;

/// <summary>
/// Moving a CRC register past n zero bytes: multiplying it by x^(8n) modulo the Castagnoli
/// polynomial P, in the bit-reflected form the CRC instruction uses (bit 31 of a register is the
/// coefficient of x^0, bit 0 that of x^31).
/// </summary>
/// <remarks>
/// With PCLMULQDQ: the carry-less product of two reflected 32-bit values, read as a reflected
/// 64-bit value, is A·B·x; the CRC instruction over that word from 0 multiplies by x^32 and
/// reduces mod P. So crc32(0, clmul(a, k)) = A·K·x^33 mod P, and K = x^(8n - 33) mod P gives the
/// shift in a few cycles. Without it, the shift is the bitwise product with x^(8n) mod P (32
/// steps). The constants of the two block sizes are computed once, at type initialisation.
/// </remarks>
internal static partial class Crc32C
{
    /// <summary>The Castagnoli polynomial, reflected, without its x^32 term.</summary>
    internal const uint ReflectedPolynomial = 0x82F63B78;

    /// <summary>Bytes per stream of a large block: 3 * 2720 = 8160 covers an 8 KiB page after its 16-byte header but for 16 bytes.</summary>
    internal const int LargeStream = 2720;

    /// <summary>Bytes per stream of a small block: 3 * 168 = 504 covers a journal sector's 508 data bytes but for 4.</summary>
    internal const int SmallStream = 168;

    private static readonly ShiftConstants LargeShift = new(LargeStream);
    private static readonly ShiftConstants SmallShift = new(SmallStream);

    /// <summary><paramref name="crc"/> moved past the zero bytes <paramref name="by"/> stands for.</summary>
    private static uint Shift(uint crc, in ShiftBy by)
    {
        if (Pclmulqdq.IsSupported)
        {
            var product = Pclmulqdq.CarrylessMultiply(Vector128.CreateScalar((ulong)crc), Vector128.CreateScalar((ulong)by.Clmul), 0x00);
            return BitOperations.Crc32C(0u, product.ToScalar());
        }

        return Multiply(crc, by.Power);
    }

    /// <summary>A·B mod P, both reflected: for each coefficient of A, add B·x^i, multiplying B by x as i grows.</summary>
    internal static uint Multiply(uint a, uint b)
    {
        uint product = 0;
        for (var degree = 0; degree < 32; degree++)
        {
            if ((a & (0x8000_0000u >> degree)) != 0)
            {
                product ^= b;
            }

            b = TimesX(b);
        }

        return product;
    }

    /// <summary>x^<paramref name="exponent"/> mod P, reflected (x^0 is bit 31).</summary>
    internal static uint PowerOfX(long exponent)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(exponent);
        var result = 0x8000_0000u; // x^0
        var square = TimesX(result); // x^(2^0)
        for (; exponent != 0; exponent >>= 1)
        {
            if ((exponent & 1) != 0)
            {
                result = Multiply(result, square);
            }

            square = Multiply(square, square);
        }

        return result;
    }

    /// <summary>The shift of <see cref="Shift"/> computed without PCLMULQDQ: the register times x^(8 * <paramref name="bytes"/>) mod P.</summary>
    internal static uint ShiftReference(uint crc, long bytes) => Multiply(crc, PowerOfX(8 * bytes));

    /// <summary>The shift of <see cref="Shift"/> for <paramref name="bytes"/> (at least 5) zero bytes, through whichever path the machine has.</summary>
    internal static uint ShiftFast(uint crc, int bytes) => Shift(crc, new ShiftBy(bytes));

    /// <summary>B·x: the bit shifted out (x^31) becomes x^32, which is P's lower terms.</summary>
    private static uint TimesX(uint b) => (b >> 1) ^ ((b & 1) != 0 ? ReflectedPolynomial : 0);

    /// <summary>A shift by a fixed number of bytes, in both forms.</summary>
    private readonly struct ShiftBy(long bytes)
    {
        /// <summary>x^(8n - 33) mod P, for the PCLMULQDQ path.</summary>
        public readonly uint Clmul = PowerOfX((8 * bytes) - 33);

        /// <summary>x^(8n) mod P, for the bitwise path.</summary>
        public readonly uint Power = PowerOfX(8 * bytes);
    }

    /// <summary>The shifts a block of three streams of one size needs: by one stream and by two.</summary>
    private readonly struct ShiftConstants(int stream)
    {
        public readonly ShiftBy OneStream = new(stream);
        public readonly ShiftBy TwoStreams = new(2 * stream);
    }
}
