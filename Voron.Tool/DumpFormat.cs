using System.Text;

namespace Voron.Tool;

/// <summary>
/// How <c>voron dump</c> shows a key or a value: as text when the bytes are valid UTF-8 with no
/// control character (tab, newline and the rest below U+0020, and DEL), as <c>0x</c> and upper-case
/// hex otherwise. Text that itself starts with <c>0x</c> is shown in hex too, so every shown form
/// reads back to exactly one byte string.
/// </summary>
internal static class DumpFormat
{
    private static readonly UTF8Encoding Strict = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>The shown form of <paramref name="bytes"/>.</summary>
    public static string Show(ReadOnlySpan<byte> bytes) => AsText(bytes) ?? "0x" + Convert.ToHexString(bytes);

    /// <summary>The bytes as text, or null when they must be shown in hex.</summary>
    public static string? AsText(ReadOnlySpan<byte> bytes)
    {
        string text;
        try
        {
            text = Strict.GetString(bytes);
        }
        catch (DecoderFallbackException)
        {
            return null;
        }

        foreach (var c in text)
        {
            if (char.IsControl(c))
            {
                return null;
            }
        }

        return text.StartsWith("0x", StringComparison.Ordinal) ? null : text;
    }

    /// <summary>
    /// Reads a <c>--prefix</c> argument: <c>0x</c> and hex digits are bytes, anything else is
    /// UTF-8 text. Throws a usage error for <c>0x</c> followed by something that is not hex.
    /// </summary>
    public static byte[] ParsePrefix(string prefix)
    {
        if (!prefix.StartsWith("0x", StringComparison.Ordinal)) // as AsText: only a lowercase 0x is the hex form
        {
            return Encoding.UTF8.GetBytes(prefix);
        }

        try
        {
            return Convert.FromHexString(prefix.AsSpan(2));
        }
        catch (FormatException)
        {
            throw new ToolException(ExitCodes.Usage, $"--prefix '{prefix}' starts with 0x but is not hex: give an even number of hex digits after 0x, or text without the 0x.");
        }
    }
}
