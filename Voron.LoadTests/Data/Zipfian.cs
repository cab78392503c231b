namespace Voron.LoadTests.Data;

/// <summary>
/// Zipf-distributed integers in [0, n): item k is drawn with probability proportional to
/// 1 / (k + 1)^theta, by the method of Gray et al., "Quickly generating billion-record synthetic
/// databases" (SIGMOD 1994), which YCSB's request distribution uses too (theta 0.99). With
/// <c>scrambled</c> the popular items are spread over the key space by a hash instead of being
/// the lowest numbers, as YCSB's scrambled zipfian does, so hot keys are not neighbours.
/// </summary>
internal sealed class Zipfian
{
    /// <summary>YCSB's default skew.</summary>
    public const double YcsbTheta = 0.99;

    private readonly long _n;
    private readonly double _theta;
    private readonly double _alpha;
    private readonly double _zetaN;
    private readonly double _eta;
    private readonly double _half;
    private readonly bool _scrambled;

    public Zipfian(long n, double theta = YcsbTheta, bool scrambled = false)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(n);
        _n = n;
        _theta = theta;
        _scrambled = scrambled;
        _zetaN = Zeta(n, theta);
        var zeta2 = Zeta(2, theta);
        _alpha = 1.0 / (1.0 - theta);
        _eta = (1 - Math.Pow(2.0 / n, 1 - theta)) / (1 - zeta2 / _zetaN);
        _half = 1 + Math.Pow(0.5, theta);
    }

    public long Count => _n;

    /// <summary>The next item, in [0, n).</summary>
    public long Next(Random random)
    {
        var u = random.NextDouble();
        var uz = u * _zetaN;
        long rank = uz < 1 ? 0 : uz < _half ? 1 : (long)(_n * Math.Pow(_eta * u - _eta + 1, _alpha));
        rank = Math.Min(rank, _n - 1);
        return _scrambled ? (long)(Fnv(rank) % (ulong)_n) : rank;
    }

    private static double Zeta(long n, double theta)
    {
        var sum = 0.0;
        for (long i = 1; i <= n; i++)
        {
            sum += 1 / Math.Pow(i, theta);
        }

        return sum;
    }

    /// <summary>FNV-1a over the 8 bytes of <paramref name="value"/>.</summary>
    private static ulong Fnv(long value)
    {
        var hash = 14695981039346656037UL;
        for (var i = 0; i < 8; i++)
        {
            hash ^= (byte)(value >> (8 * i));
            hash *= 1099511628211UL;
        }

        return hash;
    }
}
