using System.Globalization;
using System.Numerics;
using Voron.Documents.Indexing;

namespace Voron.Documents.Querying;

/// <summary>
/// A comparison between a numeric member and a constant of another numeric type, with C#'s
/// semantics: the expression <c>x.Age &gt;= 18.5</c> converts the member to the comparison's type
/// (the wider one, here double) and never the constant to the member's type.
/// </summary>
/// <remarks>
/// Numeric rules (docs/documents.md "Promises and limits"):
/// <list type="number">
/// <item>NC1. the comparison type T is the type both sides of the C# expression have (its
/// binary numeric promotion); only implicit numeric conversions may sit between the member and
/// T. An explicit narrowing cast on the member (<c>(int)x.Price</c>) is refused.</item>
/// <item>NC2. Exact: when every value of the member's type M converts to T exactly and keeps its
/// order (M = T, or integers into integers, or integers of at most 32 bits into double, of at
/// most 16 into float), the constant is encoded as an index key at its own value and compared as
/// bytes (Indexing/IndexKey.cs compares integers and doubles by value).</item>
/// <item>NC3. Inexact: otherwise (64-bit integers into double or float, int into float, float
/// into double, integers into decimal, and NaN or infinite constants), each value is decoded,
/// converted to M then to T as C# would, and compared in T. An index range is then a superset
/// of the matches (the constant widened by 2^-20 of itself), every entry in it checked.</item>
/// </list>
/// </remarks>
internal sealed class NumericComparison
{
    private readonly Type _member;
    private readonly Type _target;
    private readonly object _constant;
    private readonly ConditionKind _kind;

    private NumericComparison(Type member, Type target, object constant, ConditionKind kind)
    {
        _member = member;
        _target = target;
        _constant = constant;
        _kind = kind;
    }

    private static readonly Type[] Integers = [typeof(sbyte), typeof(byte), typeof(short), typeof(ushort), typeof(int), typeof(uint), typeof(long), typeof(ulong)];

    public static bool IsInteger(Type type) => Array.IndexOf(Integers, type) >= 0;

    public static bool IsNumeric(Type type) => IsInteger(type) || type == typeof(float) || type == typeof(double) || type == typeof(decimal);

    /// <summary>Whether C# converts <paramref name="from"/> to <paramref name="to"/> implicitly (a widening numeric conversion, or none).</summary>
    public static bool IsImplicit(Type from, Type to)
    {
        if (from == to)
        {
            return true;
        }

        if (to == typeof(float) || to == typeof(double) || to == typeof(decimal))
        {
            return IsInteger(from) || (from == typeof(float) && to == typeof(double));
        }

        if (!IsInteger(from) || !IsInteger(to))
        {
            return false;
        }

        var (fromMin, fromMax) = Range(from);
        var (toMin, toMax) = Range(to);
        return fromMin >= toMin && fromMax <= toMax;
    }

    private static (Int128 Min, Int128 Max) Range(Type type) => type switch
    {
        _ when type == typeof(sbyte) => (sbyte.MinValue, sbyte.MaxValue),
        _ when type == typeof(byte) => (byte.MinValue, byte.MaxValue),
        _ when type == typeof(short) => (short.MinValue, short.MaxValue),
        _ when type == typeof(ushort) => (ushort.MinValue, ushort.MaxValue),
        _ when type == typeof(int) => (int.MinValue, int.MaxValue),
        _ when type == typeof(uint) => (uint.MinValue, uint.MaxValue),
        _ when type == typeof(long) => (long.MinValue, long.MaxValue),
        _ => (ulong.MinValue, ulong.MaxValue),
    };

    /// <summary>
    /// Builds the condition "member op constant" for a numeric member of type <paramref name="member"/>
    /// compared in type <paramref name="target"/> (both without Nullable), or null when M = T and the
    /// constant is finite (the caller encodes it with the member's own serializer metadata).
    /// </summary>
    public static QueryCondition? TryCreate(JsonPath path, Type member, Type target, object constant, ConditionKind kind)
    {
        var nonFinite = constant is double d && !double.IsFinite(d) || constant is float f && !float.IsFinite(f);
        if (member == target && !nonFinite)
        {
            return null;
        }

        var display = $"{path} {ExpressionTranslator.Symbol(kind)} {Convert.ToString(constant, CultureInfo.InvariantCulture)} ({target.Name})";
        var exact = !nonFinite && (IsInteger(target) ||
                                   (target == typeof(double) && IsInteger(member) && Range(member) is var (min, max) && min >= int.MinValue && max <= uint.MaxValue) ||
                                   (target == typeof(float) && IsInteger(member) && Range(member) is var (min16, max16) && min16 >= short.MinValue && max16 <= ushort.MaxValue));
        if (exact)
        {
            var key = new KeyBuilder(IndexKey.NumberWithRemainderLength);
            if (IsInteger(target))
            {
                IndexKey.EncodeInteger(ToInt128(constant), key);
            }
            else
            {
                IndexKey.EncodeDouble(Convert.ToDouble(constant, CultureInfo.InvariantCulture), key);
            }

            return new QueryCondition(path, kind, key.ToArray(), display);
        }

        var comparison = new NumericComparison(member, target, constant, kind);
        var value = Convert.ToDouble(constant, CultureInfo.InvariantCulture);
        var encoded = new KeyBuilder(IndexKey.NumberLength);
        IndexKey.EncodeDouble(double.IsNaN(value) ? 0 : value, encoded);
        byte[]? lower = null;
        byte[]? upper = null;
        if (!double.IsNaN(value))
        {
            // A superset of the matches (NC3): the conversions involved move a value by at most
            // 2^-24 of itself (float rounding), or 2^-149 absolutely near zero.
            var slack = double.IsFinite(value) ? Math.Abs(value) * (1.0 / (1 << 20)) + 1e-40 : 0;
            if (kind is ConditionKind.Equal or ConditionKind.GreaterThan or ConditionKind.GreaterThanOrEqual)
            {
                lower = NumberPrefix(value - slack);
            }

            if (kind is ConditionKind.Equal or ConditionKind.LessThan or ConditionKind.LessThanOrEqual)
            {
                upper = IndexKey.Successor(NumberPrefix(value + slack));
            }
        }

        return new QueryCondition(path, kind, encoded.ToArray(), display) { Numeric = comparison, NumericLower = lower, NumericUpper = upper };
    }

    /// <summary>The tag and the 8 bytes of D: every number whose nearest double is <paramref name="value"/> starts with them.</summary>
    private static byte[] NumberPrefix(double value)
    {
        var key = new KeyBuilder(IndexKey.NumberLength);
        IndexKey.EncodeDouble(value, key);
        return key.Span[..9].ToArray();
    }

    private static Int128 ToInt128(object value) => value switch
    {
        sbyte v => v,
        byte v => v,
        short v => v,
        ushort v => v,
        int v => v,
        uint v => v,
        long v => v,
        ulong v => v,
        _ => throw new ArgumentException($"{value} is not an integer.", nameof(value)),
    };

    /// <summary>Whether an encoded value (an index key's value) satisfies the comparison as C# evaluates it (NC3).</summary>
    public bool Matches(ReadOnlySpan<byte> value)
    {
        if (value.IsEmpty || value[0] != IndexKey.Number || value.Length < IndexKey.NumberLength)
        {
            return _kind == ConditionKind.NotEqual; // null (a nullable member): lifted comparisons are false, != true
        }

        var (nearest, remainder) = IndexKey.DecodeNumber(value);
        var member = MemberValue(nearest, remainder);
        if (_target == typeof(double))
        {
            return Compare(Convert.ToDouble(member, CultureInfo.InvariantCulture), Convert.ToDouble(_constant, CultureInfo.InvariantCulture));
        }

        if (_target == typeof(float))
        {
            return Compare(Convert.ToSingle(member, CultureInfo.InvariantCulture), Convert.ToSingle(_constant, CultureInfo.InvariantCulture));
        }

        return Compare(Convert.ToDecimal(member, CultureInfo.InvariantCulture), Convert.ToDecimal(_constant, CultureInfo.InvariantCulture));
    }

    /// <summary>The member's CLR value for the JSON number D + R (what deserializing it gives, up to float parsing).</summary>
    private object MemberValue(double nearest, long remainder)
    {
        if (_member == typeof(double))
        {
            return nearest;
        }

        if (_member == typeof(float))
        {
            return (float)nearest;
        }

        if (_member == typeof(decimal))
        {
            return remainder == 0 ? (decimal)nearest : (decimal)((Int128)nearest + remainder);
        }

        // An integer member: its JSON is an integer in the member's range (a stored fraction, which
        // deserializing would refuse, is truncated).
        var integer = remainder == 0 ? (Int128)Math.Truncate(nearest) : (Int128)nearest + remainder;
        var (min, max) = Range(_member);
        integer = Int128.Clamp(integer, min, max);
        return _member == typeof(ulong) ? (ulong)integer : (object)(long)integer;
    }

    private bool Compare<T>(T a, T b) where T : INumber<T> => _kind switch
    {
        ConditionKind.Equal => a == b,
        ConditionKind.NotEqual => a != b,
        ConditionKind.LessThan => a < b,
        ConditionKind.LessThanOrEqual => a <= b,
        ConditionKind.GreaterThan => a > b,
        _ => a >= b,
    };
}
