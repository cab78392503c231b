using System.CommandLine;
using Voron.Sealing;

namespace Voron.Tool;

/// <summary>
/// The key of an encrypted store, for every command that opens one: <c>--key-file FILE</c>, else the
/// file the <c>VORON_KEY_FILE</c> environment variable names. The file's forms (32 raw bytes, 64
/// hex characters, base64 of 32 bytes) are Voron.Core's <see cref="EncryptionKeyFile"/>, which the
/// SQLite extension reads too. The key is read when a command opens a store, not before, so a
/// command that opens none (<c>key new</c>, <c>info</c>) never fails on a bad key file; a file that
/// holds no key is a usage error (exit 2) naming the file and where it came from.
/// </summary>
internal static class StoreKeyFile
{
    public const string EnvironmentVariable = "VORON_KEY_FILE";

    /// <summary>The option, on the root command and every subcommand.</summary>
    public static Option<string?> Option { get; } = new("--key-file")
    {
        Description = $"the key of an encrypted store: a file of 32 raw bytes, 64 hex characters or base64 of 32 bytes (`voron key new FILE`); default: ${EnvironmentVariable}",
        HelpName = "FILE",
        Recursive = true,
    };

    // The running command's key file (the tool runs one command per call; the tests run several at once in one process).
    private static readonly AsyncLocal<(string Path, string Origin)?> s_current = new();

    /// <summary>Takes the key file of this invocation from the parsed <paramref name="result"/> or the environment.</summary>
    public static void Select(ParseResult result, ToolConsole console)
    {
        var path = result.GetValue(Option);
        s_current.Value = !string.IsNullOrWhiteSpace(path)
            ? (path, "--key-file")
            : console.GetEnvironmentVariable(EnvironmentVariable) is { Length: > 0 } fromEnvironment
                ? (fromEnvironment, EnvironmentVariable)
                : null;
    }

    /// <summary>Whether this invocation was given a key file.</summary>
    public static bool Given => s_current.Value is not null;

    /// <summary>The key of this invocation (a pinned copy), or null when no key file was given.</summary>
    public static byte[]? Read()
    {
        if (s_current.Value is not { } file)
        {
            return null;
        }

        try
        {
            return EncryptionKeyFile.Read(file.Path);
        }
        catch (Exception e) when (e is FormatException or ArgumentException)
        {
            throw new ToolException(ExitCodes.Usage, $"{e.Message.Replace(" (Parameter 'the key file')", "", StringComparison.Ordinal)} (given by {file.Origin})");
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            throw new ToolException(ExitCodes.Usage, $"The key file '{file.Path}' (given by {file.Origin}) does not exist. Give the file that holds the store's key.");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ToolException(ExitCodes.Usage, $"The key file '{file.Path}' (given by {file.Origin}) cannot be read: {e.Message}");
        }
    }
}
