using System.Security.Cryptography;
using System.Text;
using Voron.Sealing;

namespace Voron.Tests.Core.Sealing;

/// <summary>The key file forms the voron tool and the SQLite extension share (<see cref="EncryptionKeyFile"/>).</summary>
public sealed class EncryptionKeyFileTests
{
    private static readonly byte[] Key = RandomNumberGenerator.GetBytes(32);

    public static TheoryData<string> Forms => ["raw", "hex upper", "hex lower with newline", "base64", "base64 with spaces and CRLF"];

    [Theory]
    [MemberData(nameof(Forms))]
    public void Read_takes_32_raw_bytes_64_hex_characters_or_base64_of_32_bytes_with_whitespace_trimmed(string form)
    {
        using var directory = new TempDirectory();
        var file = directory.Combine("store.key");
        switch (form)
        {
            case "raw": File.WriteAllBytes(file, Key); break;
            case "hex upper": File.WriteAllText(file, Convert.ToHexString(Key)); break;
            case "hex lower with newline": File.WriteAllText(file, Convert.ToHexString(Key).ToLowerInvariant() + "\n"); break;
            case "base64": File.WriteAllText(file, Convert.ToBase64String(Key)); break;
            default: File.WriteAllText(file, "  \t" + Convert.ToBase64String(Key) + " \r\n"); break;
        }

        Assert.Equal(Key, EncryptionKeyFile.Read(file));
    }

    public static TheoryData<string> NotKeys =>
        ["31 raw bytes", "33 raw bytes", "63 hex characters", "hex with a g", "base64 of 24 bytes", "32 hex characters", "text", "empty", "32 zero bytes"];

    [Theory]
    [MemberData(nameof(NotKeys))]
    public void Read_refuses_anything_else_naming_the_file_and_the_forms(string content)
    {
        using var directory = new TempDirectory();
        var file = directory.Combine("bad.key");
        var hex = Convert.ToHexString(Key);
        switch (content)
        {
            case "31 raw bytes": File.WriteAllBytes(file, Key[..31]); break;
            case "33 raw bytes": File.WriteAllBytes(file, [.. Key, 1]); break;
            case "63 hex characters": File.WriteAllText(file, hex[..63]); break;
            case "hex with a g": File.WriteAllText(file, "g" + hex[1..]); break;
            case "base64 of 24 bytes": File.WriteAllText(file, Convert.ToBase64String(Key[..24])); break; // 32 characters: text, not a raw key
            case "32 hex characters": File.WriteAllText(file, hex[..32]); break; // a 128-bit key in hex is no 256-bit raw key
            case "text": File.WriteAllText(file, "correct horse battery staple", Encoding.UTF8); break;
            case "empty": File.WriteAllBytes(file, []); break;
            default: File.WriteAllBytes(file, new byte[32]); break;
        }

        var error = Record.Exception(() => EncryptionKeyFile.Read(file));

        if (content == "32 zero bytes")
        {
            Assert.Contains("all zeros", Assert.IsType<ArgumentException>(error).Message, StringComparison.Ordinal);
        }
        else
        {
            Assert.IsType<FormatException>(error);
            Assert.Contains($"The key file '{file}' is not a key", error.Message, StringComparison.Ordinal);
            Assert.Contains("32 raw bytes", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Read_of_a_missing_file_is_FileNotFoundException()
    {
        using var directory = new TempDirectory();
        Assert.Throws<FileNotFoundException>(() => EncryptionKeyFile.Read(directory.Combine("missing.key")));
    }
}
