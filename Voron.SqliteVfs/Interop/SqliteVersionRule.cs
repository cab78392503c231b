using System.Globalization;

namespace Voron.SqliteVfs.Interop;

/// <summary>Which SQLite the extension accepts (EX1: every slot it uses exists from 3.38.0 on).</summary>
internal static class SqliteVersionRule
{
    /// <summary>sqlite3_libversion_number of 3.38.0, the first with sqlite3_vtab_in and sqlite3_vtab_rhs_value.</summary>
    public const int Minimum = 3_038_000;

    /// <summary>Null when <paramref name="versionNumber"/> (sqlite3_libversion_number) is new enough, else the message to give.</summary>
    public static string? Refusal(int versionNumber) => versionNumber >= Minimum
        ? null
        : $"voron: SQLite {Text(Minimum)} or newer is needed; this is {Text(versionNumber)}";

    /// <summary>3037002 as "3.37.2".</summary>
    public static string Text(int versionNumber) => string.Create(CultureInfo.InvariantCulture,
        $"{versionNumber / 1_000_000}.{versionNumber / 1_000 % 1_000}.{versionNumber % 1_000}");
}
