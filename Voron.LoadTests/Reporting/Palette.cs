using System.Text;

namespace Voron.LoadTests.Reporting;

/// <summary>
/// A colour per engine (or path, or policy) name, the same in every chart and every report: the
/// engines the experiments run have fixed colours, any other name takes a colour from its name's
/// FNV-1a hash (stable across processes, unlike <see cref="string.GetHashCode()"/>). Ten colours
/// (Tableau 10), distinct for readers with the common colour blindnesses when few are used.
/// </summary>
internal static class Palette
{
    private static readonly string[] Colors =
    [
        "#1F77B4", "#D62728", "#2CA02C", "#FF7F0E", "#9467BD",
        "#8C564B", "#E377C2", "#7F7F7F", "#BCBD22", "#17BECF",
    ];

    /// <summary>Voron's front doors in blues and greens, the peers in reds, oranges and greys.</summary>
    private static readonly Dictionary<string, string> Known = new(StringComparer.OrdinalIgnoreCase)
    {
        ["voron"] = "#1F77B4",
        ["voron-documents"] = "#1F77B4",
        ["documents"] = "#1F77B4",
        ["voron-sql"] = "#2CA02C",
        ["sql-voron"] = "#2CA02C",
        ["voron-sql-docs"] = "#17BECF",
        ["sql-docs"] = "#17BECF",
        ["voron-portable"] = "#9467BD",
        ["sqlite"] = "#D62728",
        ["sqlite-wal"] = "#D62728",
        ["sqlite-mmap"] = "#FF7F0E",
        ["sqlite-rollback"] = "#FF7F0E",
        ["litedb"] = "#8C564B",
        ["lmdb"] = "#7F7F7F",
    };

    /// <summary>
    /// Colours for the names of one report: each name's own (<see cref="ColorOf"/>) unless a name
    /// before it (known names first, then in ordinal order) took it, then the next free one; so two
    /// engines of one report never share a colour while there are ten or fewer.
    /// </summary>
    public static Dictionary<string, string> Assign(IEnumerable<string> names)
    {
        var result = new Dictionary<string, string>(StringComparer.Ordinal);
        var ordered = names.Distinct(StringComparer.Ordinal).OrderBy(n => Known.ContainsKey(n) ? 0 : 1).ThenBy(n => n, StringComparer.Ordinal);
        foreach (var name in ordered)
        {
            var index = Array.IndexOf(Colors, ColorOf(name));
            for (var i = 0; i < Colors.Length && result.ContainsValue(Colors[index]); i++)
            {
                index = (index + 1) % Colors.Length;
            }

            result[name] = Colors[index];
        }

        return result;
    }

    /// <summary>The colour ("#RRGGBB") of <paramref name="name"/>.</summary>
    public static string ColorOf(string name)
    {
        if (Known.TryGetValue(name, out var color))
        {
            return color;
        }

        var hash = 2166136261u;
        foreach (var b in Encoding.UTF8.GetBytes(name))
        {
            hash = (hash ^ b) * 16777619u;
        }

        return Colors[hash % (uint)Colors.Length];
    }
}
