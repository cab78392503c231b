using System.CommandLine;
using System.Security.Cryptography;

namespace Voron.Tool.Commands;

/// <summary>
/// <c>voron key new FILE</c>: writes a new random 256-bit key (32 raw bytes from
/// <see cref="RandomNumberGenerator"/>) for <c>--key-file</c>, <c>VORON_KEY_FILE</c>,
/// <c>voron_open(path, key_file)</c> or an app's <c>EncryptionKey</c>. Never overwrites a file
/// (losing a key loses its store); on Unix the file is created readable and writable by its owner
/// only (0600), before any key byte is written to it.
/// </summary>
internal static class KeyCommand
{
    public static Command Create(ToolConsole console)
    {
        var file = new Argument<string>("FILE") { Description = "the key file to create (it must not exist); keep it outside the store and its backups" };
        var create = new Command("new", "write a new random 256-bit key (32 raw bytes) to FILE, readable by its owner only; never overwrites") { file };
        create.SetAction((result, _) => Task.FromResult(New(console, result.GetValue(file)!)));
        return new Command("key", "make a key for an encrypted store (docs/encryption.md)") { create };
    }

    private static int New(ToolConsole console, string path)
    {
        var full = Path.GetFullPath(path);
        if (File.Exists(full) || Directory.Exists(full))
        {
            throw new ToolException(ExitCodes.Usage, $"'{path}' exists: voron key new never overwrites a file (the key in it may be the only key of a store). " +
                "Give a new file name.");
        }

        var options = new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write, Share = FileShare.None };
        if (!OperatingSystem.IsWindows())
        {
            options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite; // 0600 from creation: no moment when others may read it
        }

        FileStream stream;
        try
        {
            stream = new FileStream(full, options);
        }
        catch (IOException) when (File.Exists(full))
        {
            throw new ToolException(ExitCodes.Usage, $"'{path}' exists: voron key new never overwrites a file. Give a new file name."); // created meanwhile
        }

        var key = new byte[32];
        try
        {
            do
            {
                RandomNumberGenerator.Fill(key);
            }
            while (Voron.Sealing.EncryptionKeyFile.IsText(key)); // would be read back as text (about one key in 10^13)

            using (stream)
            {
                stream.Write(key);
                stream.Flush(flushToDisk: true);
            }
        }
        finally
        {
            CryptographicOperations.ZeroMemory(key);
        }

        console.Out.WriteLine($"wrote a new 256-bit key to {full}: keep it outside the store and its backups; losing it loses the store");
        return ExitCodes.Ok;
    }
}
