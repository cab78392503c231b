using System.Security.Cryptography;

namespace Voron.Sealing;

/// <summary>
/// Reads a key file, the form in which the voron tool (<c>--key-file</c>, <c>VORON_KEY_FILE</c>)
/// and the SQLite extension (<c>voron_open(path, key_file)</c>) take a store's key. A key file is
/// exactly one of:
///   - 32 raw bytes (what <c>voron key new</c> writes), not all of them printable text;
///   - 64 hexadecimal characters;
///   - the base64 of 32 bytes;
/// the text forms with surrounding whitespace (a trailing newline) trimmed. Anything else is a
/// <see cref="FormatException"/> saying what the file holds and what it should; a file that cannot
/// be read is the I/O exception. Every buffer that held key bytes is cleared (SL10).
/// </summary>
internal static class EncryptionKeyFile
{
    /// <summary>A key file larger than this is not a key file (the base64 form with whitespace is far smaller).</summary>
    private const int MaxFileBytes = 4096;

    /// <summary>The key in <paramref name="path"/>: a pinned array of 32 bytes the caller clears with <see cref="UserKey.Clear"/>.</summary>
    public static byte[] Read(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        var length = new FileInfo(path).Length; // FileNotFoundException names the file
        if (length > MaxFileBytes)
        {
            throw Bad(path, $"it holds {length:N0} bytes");
        }

        var bytes = File.ReadAllBytes(path);
        try
        {
            return Parse(bytes) ?? throw Bad(path, $"it holds {bytes.Length} bytes that are neither 32 raw bytes, nor 64 hex characters, nor base64 of 32 bytes");
        }
        finally
        {
            CryptographicOperations.ZeroMemory(bytes);
        }
    }

    /// <summary>The key <paramref name="content"/> holds in one of the three forms, or null when it holds none of them.</summary>
    internal static byte[]? Parse(ReadOnlySpan<byte> content)
    {
        if (content.Length == SealFormat.KeySize && !IsText(content))
        {
            return Checked(content);
        }

        var text = Trim(content);
        Span<byte> decoded = stackalloc byte[SealFormat.KeySize + 3];
        try
        {
            if (text.Length == 2 * SealFormat.KeySize && IsHex(text))
            {
                for (var i = 0; i < SealFormat.KeySize; i++)
                {
                    decoded[i] = (byte)(HexValue(text[2 * i]) << 4 | HexValue(text[2 * i + 1]));
                }

                return Checked(decoded[..SealFormat.KeySize]);
            }

            if (text.Length is > 0 and <= 48 && System.Buffers.Text.Base64.DecodeFromUtf8(text, decoded, out var consumed, out var written) ==
                System.Buffers.OperationStatus.Done && consumed == text.Length && written == SealFormat.KeySize)
            {
                return Checked(decoded[..written]);
            }

            return null;
        }
        finally
        {
            CryptographicOperations.ZeroMemory(decoded);
        }
    }

    private static byte[] Checked(ReadOnlySpan<byte> key)
    {
        var copy = Pinned();
        key.CopyTo(copy);
        try
        {
            UserKey.Check(copy, "the key file");
            return copy;
        }
        catch
        {
            CryptographicOperations.ZeroMemory(copy);
            throw;
        }
    }

    /// <summary>
    /// Whether 32 bytes are printable ASCII or whitespace: text (a 32-character hex or base64 string,
    /// a passphrase), never taken as a raw key, since a random key is text with probability
    /// (100/256)^32, about 10^-13 (<c>voron key new</c> draws again then).
    /// </summary>
    internal static bool IsText(ReadOnlySpan<byte> content)
    {
        foreach (var b in content)
        {
            if (b is not ((>= 0x20 and <= 0x7E) or (byte)'\t' or (byte)'\r' or (byte)'\n'))
            {
                return false;
            }
        }

        return true;
    }

    private static byte[] Pinned() => GC.AllocateArray<byte>(SealFormat.KeySize, pinned: true);

    private static ReadOnlySpan<byte> Trim(ReadOnlySpan<byte> content)
    {
        var start = 0;
        var end = content.Length;
        while (start < end && IsSpace(content[start]))
        {
            start++;
        }

        while (end > start && IsSpace(content[end - 1]))
        {
            end--;
        }

        return content[start..end];
    }

    private static bool IsSpace(byte b) => b is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n';

    private static bool IsHex(ReadOnlySpan<byte> text)
    {
        foreach (var b in text)
        {
            if (HexValue(b) < 0)
            {
                return false;
            }
        }

        return true;
    }

    private static int HexValue(byte b) => b switch
    {
        >= (byte)'0' and <= (byte)'9' => b - '0',
        >= (byte)'a' and <= (byte)'f' => b - 'a' + 10,
        >= (byte)'A' and <= (byte)'F' => b - 'A' + 10,
        _ => -1,
    };

    private static FormatException Bad(string path, string what) =>
        new($"The key file '{path}' is not a key: {what}. A key file holds exactly 32 raw bytes (`voron key new FILE` writes one), " +
            "or 64 hex characters, or the base64 of 32 bytes; surrounding whitespace is ignored.");
}
