namespace Voron.SqliteVfs.Documents;

/// <summary>
/// Strings in the order of their UTF-8 bytes, which is code point order: how SQLite's BINARY
/// collation orders TEXT and how the store orders ids (keys compare as unsigned bytes). .NET's
/// ordinal order compares UTF-16 code units, which puts the code points from U+10000 up
/// (surrogate pairs, 0xD800–0xDFFF) before U+E000–U+FFFF; every sort or merge of ids that SQL
/// reads (SD4) uses this order instead.
/// </summary>
internal sealed class Utf8Order : IComparer<string?>
{
    public static readonly Utf8Order Instance = new();

    public int Compare(string? x, string? y)
    {
        if (ReferenceEquals(x, y))
        {
            return 0;
        }

        if (x == null || y == null)
        {
            return x == null ? -1 : 1;
        }

        var length = Math.Min(x.Length, y.Length);
        for (var i = 0; i < length; i++)
        {
            if (x[i] != y[i])
            {
                return Rank(x[i]).CompareTo(Rank(y[i]));
            }
        }

        return x.Length.CompareTo(y.Length);
    }

    /// <summary>
    /// A code unit's place in code point order, at the first unit where two well-formed strings
    /// differ: surrogates (which start the code points above U+FFFF, or continue two equal high
    /// surrogates) move above U+E000–U+FFFF, which move down into the gap; the rest keep theirs.
    /// </summary>
    private static int Rank(char c) => c < 0xD800 ? c : c < 0xE000 ? c + 0x2000 : c - 0x800;
}
