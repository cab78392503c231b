using System.Globalization;
using Microsoft.Net.Http.Headers;

namespace Voron.Documents.AspNetCore;

/// <summary>
/// A document's version as an HTTP entity tag: the strong tag <c>"17"</c> for version 17. Versions
/// grow with every write and are unique in the store, so equal tags mean the same stored bytes.
/// </summary>
public static class DocumentETag
{
    /// <summary>The tag of <paramref name="version"/> (<c>"17"</c>, quotes included), for the <c>ETag</c> header.</summary>
    public static string Format(long version)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(version);
        return "\"" + version.ToString(CultureInfo.InvariantCulture) + "\"";
    }

    /// <summary>Reads a version from one strong tag this API wrote; false for anything else (weak tags, <c>*</c>, lists, other values).</summary>
    public static bool TryParse(string? value, out long version)
    {
        version = 0;
        if (value == null || !EntityTagHeaderValue.TryParse(value.Trim(), out var tag) || tag.IsWeak || tag.Tag.Length < 3)
        {
            return false;
        }

        return long.TryParse(tag.Tag.AsSpan(1, tag.Tag.Length - 2), NumberStyles.None, CultureInfo.InvariantCulture, out version) && version > 0;
    }
}
