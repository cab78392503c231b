using System.Globalization;
using System.Text;
using Voron.SqliteVfs.Interop.VirtualTables;

namespace Voron.SqliteVfs.Documents;

/// <summary>SQLite's storage classes, in SQLite's sort order.</summary>
internal enum SqlKind
{
    Null,
    Integer,
    Real,
    Text,
    Blob,
}

/// <summary>A SQLite value copied out of SQLite (or made from JSON), compared as SQLite compares with BINARY collation.</summary>
internal readonly record struct SqlValue(SqlKind Kind, long Integer = 0, double Real = 0, byte[]? Bytes = null)
{
    public static SqlValue Null => default;

    public bool IsNull => Kind == SqlKind.Null;

    public bool IsNumeric => Kind is SqlKind.Integer or SqlKind.Real;

    public static SqlValue FromInteger(long value) => new(SqlKind.Integer, Integer: value);

    public static SqlValue FromReal(double value) => double.IsNaN(value) ? Null : new(SqlKind.Real, Real: value);

    public static SqlValue FromText(string text) => new(SqlKind.Text, Bytes: Encoding.UTF8.GetBytes(text));

    public static SqlValue FromUtf8(ReadOnlySpan<byte> utf8) => new(SqlKind.Text, Bytes: utf8.ToArray());

    /// <summary>Copies a value SQLite passed in (valid only during the callback).</summary>
    public static SqlValue From(SqliteValue value) => value.Type switch
    {
        SqliteType.Integer => FromInteger(value.Int64),
        SqliteType.Float => FromReal(value.Double),
        SqliteType.Text => FromUtf8(value.Utf8),
        SqliteType.Blob => new SqlValue(SqlKind.Blob, Bytes: value.Blob.ToArray()),
        _ => Null,
    };

    public string Text => Bytes == null ? "" : Encoding.UTF8.GetString(Bytes);

    public void SetResult(ResultContext result)
    {
        switch (Kind)
        {
            case SqlKind.Integer:
                result.SetInt64(Integer);
                break;
            case SqlKind.Real:
                result.SetDouble(Real);
                break;
            case SqlKind.Text:
                result.SetText(Bytes);
                break;
            case SqlKind.Blob:
                result.SetBlob(Bytes);
                break;
            default:
                result.SetNull();
                break;
        }
    }

    /// <summary>SQLite's order: NULL &lt; numbers (integers and reals compared by value) &lt; text (bytes) &lt; blobs.</summary>
    public static int Compare(SqlValue a, SqlValue b)
    {
        var ra = Rank(a.Kind);
        var rb = Rank(b.Kind);
        if (ra != rb)
        {
            return ra.CompareTo(rb);
        }

        return ra switch
        {
            0 => 0,
            1 => CompareNumbers(a, b),
            _ => a.Bytes.AsSpan().SequenceCompareTo(b.Bytes),
        };
    }

    private static int Rank(SqlKind kind) => kind switch
    {
        SqlKind.Null => 0,
        SqlKind.Integer or SqlKind.Real => 1,
        SqlKind.Text => 2,
        _ => 3,
    };

    private static int CompareNumbers(SqlValue a, SqlValue b)
    {
        if (a.Kind == SqlKind.Integer && b.Kind == SqlKind.Integer)
        {
            return a.Integer.CompareTo(b.Integer);
        }

        if (a.Kind == SqlKind.Real && b.Kind == SqlKind.Real)
        {
            return a.Real.CompareTo(b.Real);
        }

        return a.Kind == SqlKind.Integer ? CompareIntegerReal(a.Integer, b.Real) : -CompareIntegerReal(b.Integer, a.Real);
    }

    private static int CompareIntegerReal(long i, double r)
    {
        if (r < -9.2233720368547758e18)
        {
            return 1;
        }

        if (r >= 9.2233720368547758e18)
        {
            return -1;
        }

        var whole = (long)Math.Floor(r);
        if (i != whole)
        {
            return i.CompareTo(whole);
        }

        return r > whole ? -1 : 0;
    }

    /// <summary>
    /// A real as SQLite writes it as text (CAST, TEXT affinity, json_set): printf's "%!.15g" — 15
    /// significant digits, a ".0" on a mantissa without a point, "e+NN" exponents, both zeros "0.0".
    /// </summary>
    public static string RealText(double value)
    {
        if (value == 0)
        {
            return "0.0";
        }

        if (!double.IsFinite(value))
        {
            return double.IsNaN(value) ? "NaN" : value > 0 ? "Inf" : "-Inf";
        }

        var text = value.ToString("G15", CultureInfo.InvariantCulture); // "1E+20", "1.5E-07", "123.25"
        var e = text.IndexOf('E', StringComparison.Ordinal);
        var mantissa = e < 0 ? text : text[..e];
        if (!mantissa.Contains('.', StringComparison.Ordinal))
        {
            mantissa += ".0";
        }

        return e < 0 ? mantissa : mantissa + "e" + text[(e + 1)..];
    }

    public override string ToString() => Kind switch
    {
        SqlKind.Integer => Integer.ToString(CultureInfo.InvariantCulture),
        SqlKind.Real => RealText(Real),
        SqlKind.Text => "'" + Text + "'",
        SqlKind.Blob => "x'" + Convert.ToHexString(Bytes!) + "'",
        _ => "NULL",
    };
}
